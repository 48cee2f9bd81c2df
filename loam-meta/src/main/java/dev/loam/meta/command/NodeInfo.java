package dev.loam.meta.command;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A registered node: stable id, current epoch, advertised address, capacity slots and zone, and the
 * named endpoints it advertises ({@link SetNodeEndpoint}: name to address, such as {@code kafka} to
 * {@code 10.0.0.5:9092}).
 *
 * @param endpoints immutable, sorted by name, never null; empty until the node's current process
 *     advertises one (a registration at a newer epoch starts empty)
 */
public record NodeInfo(
    String id,
    long epoch,
    String advertisedAddress,
    int slots,
    String zone,
    SortedMap<String, String> endpoints) {

  public NodeInfo {
    endpoints =
        endpoints == null || endpoints.isEmpty()
            ? Collections.emptySortedMap()
            : Collections.unmodifiableSortedMap(new TreeMap<>(endpoints));
  }

  /** A node without endpoints. */
  public NodeInfo(String id, long epoch, String advertisedAddress, int slots, String zone) {
    this(id, epoch, advertisedAddress, slots, zone, null);
  }

  /** This node with other slots; everything else, endpoints included, unchanged. */
  public NodeInfo withSlots(int newSlots) {
    return new NodeInfo(id, epoch, advertisedAddress, newSlots, zone, endpoints);
  }

  /** This node with other endpoints; everything else unchanged. */
  public NodeInfo withEndpoints(SortedMap<String, String> newEndpoints) {
    return new NodeInfo(id, epoch, advertisedAddress, slots, zone, newEndpoints);
  }
}
