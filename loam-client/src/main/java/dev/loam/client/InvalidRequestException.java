package dev.loam.client;

/**
 * The server refused the request as malformed or invalid (400, 405, 406, 413, 415): a bad field, a
 * name it refuses, a partition beyond the stream's count. Sending it again cannot succeed.
 */
public final class InvalidRequestException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public InvalidRequestException(String code, int status, String message, String node) {
    super(code, status, message, node, null);
  }
}
