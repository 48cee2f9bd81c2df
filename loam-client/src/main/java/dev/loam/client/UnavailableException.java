package dev.loam.client;

import java.time.Duration;

/**
 * Transient: a node answered 503 (metastore unavailable, backpressure, {@code timeout}, shutting
 * down, too many long-polls) or 429, saying nothing was done, or no node could be reached ({@code
 * connection_failed}, status 0). The client already retried within its limits; the caller may try
 * again later.
 */
public class UnavailableException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  private final Duration retryAfter;

  public UnavailableException(
      String code, int status, String message, String node, Duration retryAfter, Throwable cause) {
    super(code, status, message, node, cause);
    this.retryAfter = retryAfter;
  }

  /** The wait the server asked for ({@code Retry-After}), or zero when it named none. */
  public Duration retryAfter() {
    return retryAfter;
  }

  @Override
  public boolean retryable() {
    return true;
  }
}
