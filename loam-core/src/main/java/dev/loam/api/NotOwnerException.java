package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * An owner-bound request (stream admin, transfers, named-consumer leases and commits) reached a
 * node that does not own the stream (ownership-and-routing.txt "Routing"). Names the owner, or the
 * pending transfer target, and its advertised address: send the same request there (the HTTP API
 * answers 307 to that address). The node's view can lag the log by a moment, so the owner named may
 * itself redirect once more; views converge.
 */
public final class NotOwnerException extends LoamException {
  private final String namespace;
  private final String stream;
  private final String ownerNodeId;
  private final String ownerAddress;

  public NotOwnerException(
      String namespace, String stream, String ownerNodeId, String ownerAddress, String detail) {
    super(
        Kind.NOT_OWNER,
        "stream is owned by another node stream="
            + namespace
            + "/"
            + stream
            + " owner="
            + ownerNodeId
            + " ownerAddress="
            + ownerAddress
            + (detail == null || detail.isEmpty() ? "" : " " + detail));
    this.namespace = namespace;
    this.stream = stream;
    this.ownerNodeId = ownerNodeId;
    this.ownerAddress = ownerAddress;
  }

  public String namespace() {
    return namespace;
  }

  public String stream() {
    return stream;
  }

  /** The node to send the request to. */
  public String ownerNodeId() {
    return ownerNodeId;
  }

  /** That node's advertised address (may be empty when it registered none). */
  public String ownerAddress() {
    return ownerAddress;
  }
}
