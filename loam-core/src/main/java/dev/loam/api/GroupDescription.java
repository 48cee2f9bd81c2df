package dev.loam.api;

import java.util.List;

/**
 * A consumer group's stored record: the generation of its last completed rebalance (0: none) and
 * its committed offsets, by stream and partition. Membership lives in the coordinator, not here.
 *
 * @param coordinatorNodeId the node holding the group's coordinator stream in this node's view;
 *     empty while none does (its owner died and no node revived it yet)
 */
public record GroupDescription(
    String namespace,
    String group,
    int generation,
    List<CommittedOffset> offsets,
    String coordinatorNodeId) {
  public GroupDescription {
    offsets = List.copyOf(offsets);
  }
}
