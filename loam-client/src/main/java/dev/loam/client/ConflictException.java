package dev.loam.client;

/**
 * 409 {@code conflict}: the request contradicts the stored state (the name exists, a namespace is
 * not empty, a producer sequence is out of order, a consumer lease is held by another holder).
 */
public final class ConflictException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public ConflictException(String message, String node) {
    super("conflict", 409, message, node, null);
  }
}
