package dev.loam.spi.quorum;

/**
 * Names the segment objects a journal's sealer writes: the node runtime puts the cluster id and a
 * fresh ULID in each key (docs/formats/bucket-layout.md), so two attempts at one range never share
 * a key, and the ULID's time is the segment's time for the metastore's stale-commit window.
 */
@FunctionalInterface
public interface SegmentNamer {
  /** A fresh name for a segment of one partition whose first record is {@code baseOffset}. */
  SegmentName name(long streamId, int partition, long baseOffset);

  /**
   * A segment's object key and creation time.
   *
   * @param key {@code seg/<cluster>/<stream>/<partition>/<base>-<ulid>.seg}
   * @param timeMillis the ULID's time
   */
  record SegmentName(String key, long timeMillis) {}
}
