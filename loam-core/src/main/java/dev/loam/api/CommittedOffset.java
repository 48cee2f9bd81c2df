package dev.loam.api;

import java.util.Objects;

/**
 * A consumer group's committed offset on one partition: the next offset the group reads, with the
 * leader epoch (-1: none) and metadata string the client committed.
 */
public record CommittedOffset(
    String stream, int partition, long offset, int leaderEpoch, String metadata) {
  public CommittedOffset {
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(metadata, "metadata");
  }
}
