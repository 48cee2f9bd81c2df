package dev.loam.client;

/**
 * An owner-bound request (stream config, delete, add partitions, consumer lease and commit,
 * transfer) reached a node that does not own the stream, and the client was asked not to follow the
 * redirect ({@code followRedirects(false)}). Carries the owner the node named, so the caller can
 * send the request there itself (ownership-and-routing.txt "Routing").
 */
public final class NotOwnerException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  private final String ownerNodeId;
  private final String ownerAddress;

  public NotOwnerException(
      int status, String message, String node, String ownerNodeId, String ownerAddress) {
    super("not_owner", status, message, node, null);
    this.ownerNodeId = ownerNodeId;
    this.ownerAddress = ownerAddress;
  }

  /** The owner's node id, as the answering node sees it. */
  public String ownerNodeId() {
    return ownerNodeId;
  }

  /** The owner's advertised base URL ({@code http://host:port}); empty if it has none. */
  public String ownerAddress() {
    return ownerAddress;
  }
}
