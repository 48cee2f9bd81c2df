package dev.loam.client;

import java.time.Duration;

/**
 * 429 {@code quota_exceeded}: the namespace's ingest quota on the answering node is spent; nothing
 * was appended. {@link #retryAfter()} is the server's computed wait.
 */
public final class QuotaExceededException extends UnavailableException {
  private static final long serialVersionUID = 1L;

  public QuotaExceededException(String message, String node, Duration retryAfter) {
    super("quota_exceeded", 429, message, node, retryAfter, null);
  }
}
