package dev.loam.core.write;

import java.time.Duration;
import java.util.concurrent.CompletionException;

/**
 * The retry bookkeeping shared by a WAL object's PUT and its commit: exponential backoff with a
 * cap, and whether another attempt still starts before a deadline (the commit budget after the
 * object's ULID time, stream-engine.txt §3 "Commit window": writers start no attempt after it).
 */
final class WriteRetry {
  /** The longest wait between two attempts. */
  static final long MAX_BACKOFF_MILLIS = 1000;

  private WriteRetry() {}

  /** The wait before attempt {@code attempt + 1}: {@code initial} doubled per attempt, capped. */
  static long backoffMillis(Duration initial, int attempt) {
    return Math.min(MAX_BACKOFF_MILLIS, initial.toMillis() << Math.min(attempt, 20));
  }

  /**
   * Whether an attempt started {@code backoffMillis} after {@code nowMillis} is before the
   * deadline.
   */
  static boolean startsBefore(long nowMillis, long backoffMillis, long deadlineMillis) {
    return nowMillis + backoffMillis < deadlineMillis;
  }

  /** The cause a {@link CompletionException} wraps, or {@code e} itself. */
  static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
