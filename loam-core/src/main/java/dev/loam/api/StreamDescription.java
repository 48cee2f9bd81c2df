package dev.loam.api;

import java.util.List;

/** A stream as the local metastore replica sees it, with each partition's bounds. */
public record StreamDescription(
    long id, String namespace, String name, StreamSpec spec, List<PartitionBounds> partitions) {
  public StreamDescription {
    partitions = List.copyOf(partitions);
  }

  /**
   * Records {@code [logStartOffset, highWatermark)} of a partition are readable.
   *
   * @param journal for a quorum stream, the journal holding the partition (empty for the other
   *     classes, and while a quorum partition has none)
   * @param movingToJournal the journal the partition is moving to while a move is under way ({@link
   *     Log#moveJournalPartition}), else empty
   */
  public record PartitionBounds(
      int partition,
      long logStartOffset,
      long highWatermark,
      String journal,
      String movingToJournal) {
    public PartitionBounds {
      java.util.Objects.requireNonNull(journal, "journal");
      java.util.Objects.requireNonNull(movingToJournal, "movingToJournal");
    }

    /** The bounds of a partition on no journal. */
    public PartitionBounds(int partition, long logStartOffset, long highWatermark) {
      this(partition, logStartOffset, highWatermark, "", "");
    }
  }
}
