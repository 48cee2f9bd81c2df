package dev.loam.client;

/**
 * 409 {@code fenced}: a newer identity replaced the caller's (a higher producer epoch, a consumer
 * generation taken by another holder or an expired lease). Take a new identity rather than retry.
 */
public final class FencedException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public FencedException(String message, String node) {
    super("fenced", 409, message, node, null);
  }
}
