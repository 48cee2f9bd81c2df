package dev.loam.client;

/**
 * 500 {@code internal} or {@code corruption}, or an answer the client cannot read (an unexpected
 * status or body): a bug or damaged data on the server side, not something a retry fixes.
 */
public final class ServerErrorException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public ServerErrorException(String code, int status, String message, String node) {
    super(code, status, message, node, null);
  }
}
