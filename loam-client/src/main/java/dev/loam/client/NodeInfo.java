package dev.loam.client;

/**
 * A live cluster node as {@code GET /v1/cluster/nodes} lists it.
 *
 * @param nodeId the node's stable id
 * @param epoch the node's registration epoch (its start time)
 * @param address its advertised base URL, normalised to {@code scheme://host:port}; empty if the
 *     node advertises none
 * @param zone its availability zone, empty if unknown
 * @param slots its placement weight
 */
public record NodeInfo(String nodeId, long epoch, String address, String zone, int slots) {}
