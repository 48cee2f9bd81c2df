package dev.loam.wal.segment;

/**
 * One entry of a segment's batch index (segment-v1.md): the batch holding records {@code
 * [baseOffset, baseOffset + recordCount)} lies at {@code [position, position + length)} of the
 * segment object. In a compacted segment {@code recordCount} is the batch's offset span ({@code
 * lastOffsetDelta + 1}), which may exceed the records it holds (segment-v1.md).
 */
public record SegmentBatch(
    long baseOffset, int recordCount, long maxTimestamp, long position, int length) {
  /** The offset after the batch's last record. */
  public long endOffset() {
    return baseOffset + recordCount;
  }
}
