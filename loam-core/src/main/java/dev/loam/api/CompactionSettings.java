package dev.loam.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How a node compacts the compacted streams it owns (docs/design/maintenance.md "Compacted
 * streams"): a node-wide setting for now (Kafka's topic-level {@code delete.retention.ms} would
 * become a stream setting once the stream config carries it).
 *
 * @param tombstoneRetention a tombstone that is the latest for its key is kept at least this long
 *     after the first compaction that rewrote it (24 h, Kafka's {@code delete.retention.ms})
 * @param mapBytes memory for one pass's key → offset map (16 MiB: about 600 000 keys at 24 bytes a
 *     slot and 90 % load); a partition with more keys is compacted in several passes
 * @param maxPartitionsPerPass partitions compacted per maintenance pass at most (4)
 */
public record CompactionSettings(
    Duration tombstoneRetention, long mapBytes, int maxPartitionsPerPass) {
  public CompactionSettings {
    Objects.requireNonNull(tombstoneRetention, "tombstoneRetention");
    if (tombstoneRetention.isNegative()) {
      throw new IllegalArgumentException(
          "invalid compaction setting tombstoneRetention=" + tombstoneRetention);
    }
    if (mapBytes < 24 * 16 || mapBytes > (1L << 34)) {
      throw new IllegalArgumentException("invalid compaction setting mapBytes=" + mapBytes);
    }
    if (maxPartitionsPerPass < 1) {
      throw new IllegalArgumentException(
          "invalid compaction setting maxPartitionsPerPass=" + maxPartitionsPerPass);
    }
  }

  /** 24 h tombstone retention, a 16 MiB map, 4 partitions per pass. */
  public static CompactionSettings defaults() {
    return new CompactionSettings(Duration.ofHours(24), 16L << 20, 4);
  }

  /** The same with another tombstone retention. */
  public CompactionSettings withTombstoneRetention(Duration d) {
    return new CompactionSettings(d, mapBytes, maxPartitionsPerPass);
  }

  /** The same with another map size. */
  public CompactionSettings withMapBytes(long bytes) {
    return new CompactionSettings(tombstoneRetention, bytes, maxPartitionsPerPass);
  }
}
