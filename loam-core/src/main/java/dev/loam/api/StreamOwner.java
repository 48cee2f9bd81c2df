package dev.loam.api;

/**
 * Who owns a stream, in the answering node's view (ownership-and-routing.txt).
 *
 * @param state {@code unplaced}, {@code placed}, {@code open} or {@code closed}
 * @param ownerNodeId the owner when placed or open, else empty
 * @param ownerAddress the owner's advertised address, else empty
 * @param streamEpoch bumped by every open
 * @param transferTarget the node a pending transfer moves the stream to, else empty
 */
public record StreamOwner(
    String state,
    String ownerNodeId,
    String ownerAddress,
    long streamEpoch,
    String transferTarget) {}
