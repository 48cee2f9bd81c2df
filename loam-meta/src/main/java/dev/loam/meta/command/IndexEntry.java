package dev.loam.meta.command;

/**
 * One offset-index entry of a partition (stream-engine.txt §3 sequencer): records {@code
 * [baseOffset, baseOffset + recordCount)} are the RecordBatch v2 batches stored back to back at
 * {@code [byteOffset, byteOffset + byteLength)} of {@code objectKey}. The batches' own baseOffset
 * fields are not authoritative; readers patch them from this entry. {@code recordCount} counts the
 * offsets the entry covers: after compaction (docs/design/maintenance.md "Compacted streams") its
 * batches may hold fewer records than that.
 */
public record IndexEntry(
    long baseOffset,
    int recordCount,
    String objectKey,
    long byteOffset,
    int byteLength,
    long maxTimestamp) {

  /** The offset after the last record of this entry. */
  public long endOffset() {
    return baseOffset + recordCount;
  }
}
