package dev.loam.client;

/** 404: the namespace, stream or partition does not exist (or the route does not). */
public final class NotFoundException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public NotFoundException(String code, String message, String node) {
    super(code, 404, message, node, null);
  }
}
