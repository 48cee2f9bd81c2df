package dev.loam.api;

import dev.loam.error.LoamException;
import java.util.concurrent.CompletionException;

/** What the default methods of {@link Log} share: unwrapping and classifying a future's failure. */
final class LogDefaults {
  private LogDefaults() {}

  /** The failure a future completed with, without the {@link CompletionException} around it. */
  static Throwable cause(Throwable t) {
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  static boolean isConflict(Throwable t) {
    return cause(t) instanceof LoamException e && e.kind() == LoamException.Kind.CONFLICT;
  }

  static boolean isKind(Throwable t, LoamException.Kind kind) {
    return cause(t) instanceof LoamException e && e.kind() == kind;
  }

  /** {@code t} to rethrow from a stage: a {@link CompletionException} around its cause. */
  static CompletionException rethrow(Throwable t) {
    return t instanceof CompletionException ce ? ce : new CompletionException(cause(t));
  }
}
