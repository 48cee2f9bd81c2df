package dev.loam.api;

/**
 * A node of the cluster as its registry records it (stream-engine.txt §3 zone awareness).
 *
 * @param epoch the node's current registration epoch (process start)
 * @param advertisedAddress where clients reach the node
 * @param zone its availability zone; empty if unknown
 */
public record NodeDescription(
    String nodeId, long epoch, String advertisedAddress, String zone, int slots) {}
