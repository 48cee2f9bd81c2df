package dev.loam.client;

/**
 * A stream's ownership (docs/design/ownership.md): who serves its owner-bound requests.
 *
 * @param state {@code unplaced}, {@code placed}, {@code open} or {@code closed} as the server
 *     spells it
 * @param nodeId the owner (empty without one)
 * @param address the owner's advertised address
 * @param streamEpoch bumped on every open
 * @param transferTarget the node a pending transfer moves it to (empty if none)
 */
public record StreamOwner(
    String state, String nodeId, String address, long streamEpoch, String transferTarget) {}
