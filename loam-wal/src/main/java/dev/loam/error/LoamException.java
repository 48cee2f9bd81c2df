package dev.loam.error;

import java.util.Objects;

/**
 * The root of every error Loam reports: unchecked, with a coarse {@link Kind} that tells the caller
 * what it can do about it. Messages end with the identifiers involved as {@code key=value}.
 */
public class LoamException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What a caller can do about an error. */
  public enum Kind {
    /** The request was malformed or violates a limit; retrying it unchanged fails again. */
    INVALID,
    /** The named thing (stream, object, offset range) does not exist. */
    NOT_FOUND,
    /** A transient failure; the same request may succeed later. Nothing was changed. */
    UNAVAILABLE,
    /** The caller's identity (node epoch, producer epoch, lease) is no longer current. */
    FENCED,
    /** The request conflicts with current state (already exists, stale commit, out of order). */
    CONFLICT,
    /** Stored bytes failed a checksum or structural check. */
    CORRUPTION,
    /** The request may or may not have taken effect; only a read can tell. */
    OUTCOME_UNKNOWN,
    /** A bug or broken invariant inside Loam. */
    INTERNAL,
    /**
     * The request must be served by the stream's owner, another node (ownership-and-routing.txt);
     * the error names the owner and its address, and the same request there succeeds.
     */
    NOT_OWNER
  }

  private final Kind kind;

  public LoamException(Kind kind, String message) {
    this(kind, message, null);
  }

  public LoamException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** The coarse kind of this error. */
  public Kind kind() {
    return kind;
  }

  /** Whether the same request may succeed if retried later, unchanged. */
  public boolean isRetriable() {
    return kind == Kind.UNAVAILABLE;
  }
}
