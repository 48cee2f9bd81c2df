package dev.loam.api;

import java.util.List;

/** A stream as the local metastore replica sees it, with each partition's bounds. */
public record StreamDescription(
    long id, String namespace, String name, StreamSpec spec, List<PartitionBounds> partitions) {
  public StreamDescription {
    partitions = List.copyOf(partitions);
  }

  /** Records {@code [logStartOffset, highWatermark)} of a partition are readable. */
  public record PartitionBounds(int partition, long logStartOffset, long highWatermark) {}
}
