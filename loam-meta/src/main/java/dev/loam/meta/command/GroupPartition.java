package dev.loam.meta.command;

/**
 * A partition of a stream, as a key of a group's committed offsets; sorted by stream, then
 * partition.
 */
public record GroupPartition(long streamId, int partition) implements Comparable<GroupPartition> {
  @Override
  public int compareTo(GroupPartition o) {
    int c = Long.compare(streamId, o.streamId);
    return c != 0 ? c : Integer.compare(partition, o.partition);
  }
}
