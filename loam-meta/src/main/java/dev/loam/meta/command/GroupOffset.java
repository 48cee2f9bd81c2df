package dev.loam.meta.command;

import java.util.Objects;

/**
 * One committed offset of a Kafka consumer group: the next offset the group reads from one
 * partition, with the leader epoch and metadata string the client committed it with.
 *
 * @param leaderEpoch the client's leader epoch, -1 when it sent none
 * @param metadata the client's metadata string, empty when it sent none
 */
public record GroupOffset(
    long streamId, int partition, long offset, int leaderEpoch, String metadata) {
  /** The longest metadata string, in UTF-16 chars (Kafka's {@code offset.metadata.max.bytes}). */
  public static final int MAX_METADATA_LENGTH = 4096;

  public GroupOffset {
    Objects.requireNonNull(metadata, "metadata");
  }

  /** The partition this offset is of. */
  public GroupPartition key() {
    return new GroupPartition(streamId, partition);
  }
}
