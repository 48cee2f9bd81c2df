package dev.loam.client;

import java.util.List;
import java.util.Optional;

/**
 * A stream as a node describes it: its configuration, each partition's bounds at that node's view,
 * and (from describe) the owner that node sees.
 *
 * @param owner present in {@link LoamClient#describeStream} answers
 */
public record StreamInfo(
    String namespace,
    String name,
    long id,
    int partitions,
    String durabilityClass,
    long retentionMs,
    long retentionBytes,
    String cleanupPolicy,
    List<PartitionBounds> partitionBounds,
    Optional<StreamOwner> owner) {

  /** One partition's readable range: {@code [logStartOffset, highWatermark)}. */
  public record PartitionBounds(int partition, long logStartOffset, long highWatermark) {}
}
