package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * Removes committed offsets of a Kafka consumer group (OffsetDelete), or with {@code wholeGroup}
 * the group's whole record (DeleteGroups). Owner-bound on the group's coordinator stream. Removing
 * what is not there succeeds and changes nothing.
 */
public record DeleteGroupOffsets(
    Origin origin,
    long coordinatorStreamId,
    String namespace,
    String group,
    boolean wholeGroup,
    List<GroupPartition> partitions)
    implements Command {
  public DeleteGroupOffsets {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(group, "group");
    partitions = List.copyOf(partitions);
  }
}
