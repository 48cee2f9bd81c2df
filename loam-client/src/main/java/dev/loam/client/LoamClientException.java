package dev.loam.client;

import java.util.Optional;

/**
 * Every failure the client reports: a stable problem {@link #code()} (the server's, or one of the
 * client's own such as {@code connection_failed}), the HTTP status (0 when no answer arrived), and
 * whether the same call may simply be retried. Subclasses name the cases a caller handles
 * differently (docs/reference/client.md "Errors").
 */
public class LoamClientException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String code;
  private final int status;
  private final String node;

  public LoamClientException(
      String code, int status, String message, String node, Throwable cause) {
    super(message, cause);
    this.code = code;
    this.status = status;
    this.node = node;
  }

  /**
   * The problem code: {@code not_found}, {@code conflict}, ... (docs/reference/http-api.md
   * "Errors").
   */
  public String code() {
    return code;
  }

  /** The HTTP status of the answer, or 0 when the node never answered. */
  public int status() {
    return status;
  }

  /** The base URL of the node that answered (or failed to), if one was reached. */
  public Optional<String> node() {
    return Optional.ofNullable(node);
  }

  /**
   * True when the same call may be sent again unchanged: the server said nothing was done
   * (unavailable, quota, timeout) or the client could not reach any node.
   */
  public boolean retryable() {
    return false;
  }
}
