package dev.loam.api;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A node of the cluster as its registry records it (stream-engine.txt §3 zone awareness).
 *
 * @param epoch the node's current registration epoch (process start)
 * @param advertisedAddress where clients reach the node's HTTP API (redirects point here)
 * @param zone its availability zone; empty if unknown
 * @param endpoints the node's other listeners by name ({@code kafka} to {@code 10.0.0.5:9092}), as
 *     its current process advertised them ({@link Log#advertiseEndpoint}); sorted by name,
 *     immutable, never null, empty when it advertised none
 */
public record NodeDescription(
    String nodeId,
    long epoch,
    String advertisedAddress,
    String zone,
    int slots,
    Map<String, String> endpoints) {

  public NodeDescription {
    endpoints =
        endpoints == null || endpoints.isEmpty()
            ? Collections.emptySortedMap()
            : Collections.unmodifiableSortedMap(new TreeMap<>(endpoints));
  }
}
