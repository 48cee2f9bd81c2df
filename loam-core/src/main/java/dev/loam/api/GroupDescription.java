package dev.loam.api;

import java.util.List;

/**
 * A consumer group's stored record: the generation of its last completed rebalance (0: none) and
 * its committed offsets, by stream and partition. Membership lives in the coordinator, not here.
 */
public record GroupDescription(
    String namespace, String group, int generation, List<CommittedOffset> offsets) {
  public GroupDescription {
    offsets = List.copyOf(offsets);
  }
}
