package dev.loam.wal.segment;

import java.util.List;
import java.util.Objects;

/**
 * A built or fully parsed segment v1: its identity, its batch index and its bytes. The bytes are
 * shared, not copied: callers must not mutate them.
 */
public record Segment(
    long streamId, int partition, long baseOffset, List<SegmentBatch> batches, byte[] bytes) {
  public Segment {
    Objects.requireNonNull(bytes, "bytes");
    batches = List.copyOf(batches);
  }

  /** The offset after the last record. */
  public long endOffset() {
    return batches.get(batches.size() - 1).endOffset();
  }

  /** Where the data region ends (the index starts). */
  public long dataEnd() {
    SegmentBatch last = batches.get(batches.size() - 1);
    return last.position() + last.length();
  }

  public int size() {
    return bytes.length;
  }
}
