package dev.loam.journal.entry;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.batch.RecordBatch;
import java.nio.ByteBuffer;

/**
 * One entry of a journal's Raft log (docs/formats/journal-entry-v1.md): what a journal's leader
 * proposes and every replica applies, in log order.
 */
public sealed interface JournalEntry {
  /** The stream the entry is about, ≥ 0. */
  long streamId();

  /** The partition the entry is about, ≥ 0. */
  int partition();

  /** Makes the journal host a partition whose first offset is {@code startOffset}. */
  record Host(long streamId, int partition, long startOffset) implements JournalEntry {
    /**
     * @throws LoamException INVALID if a field is negative
     */
    public Host {
      checkIds(streamId, partition);
      if (startOffset < 0) {
        throw new LoamException(
            Kind.INVALID, "journal host needs startOffset >= 0 startOffset=" + startOffset);
      }
    }
  }

  /**
   * Appends one Kafka RecordBatch v2, as the producer sent it. The array is owned by the entry from
   * construction on: callers must not change it afterwards.
   */
  record Append(long streamId, int partition, byte[] batch) implements JournalEntry {
    /**
     * @throws LoamException INVALID if a field is negative or the bytes are not exactly one valid
     *     RecordBatch v2 (bad CRC, truncated, trailing bytes), or it is a control or transactional
     *     batch (the journal has no transactions)
     */
    public Append {
      checkIds(streamId, partition);
      try {
        checkBatch(batch);
      } catch (CorruptionException e) {
        throw new LoamException(
            Kind.INVALID,
            "journal append needs one valid record batch: "
                + e.getMessage()
                + " stream="
                + streamId
                + " partition="
                + partition,
            e);
      }
    }

    /** The batch's header view (no copy). */
    public RecordBatch header() {
      return RecordBatch.readFrom(ByteBuffer.wrap(batch));
    }
  }

  /** Records that {@code segment} now holds the partition's offsets from the sealed offset on. */
  record Seal(long streamId, int partition, SegmentPointer segment) implements JournalEntry {
    /**
     * @throws LoamException INVALID if a field is negative
     */
    public Seal {
      checkIds(streamId, partition);
      java.util.Objects.requireNonNull(segment, "segment");
    }
  }

  /**
   * Stops the journal hosting a partition whose tail is wholly sealed up to {@code endOffset} (the
   * first step of moving it to another journal): accepted only when the partition's sealed offset
   * and next offset both equal {@code endOffset}; the partition is then forgotten, so appends to it
   * are refused as for any partition the journal does not host.
   */
  record Release(long streamId, int partition, long endOffset) implements JournalEntry {
    /**
     * @throws LoamException INVALID if a field is negative
     */
    public Release {
      checkIds(streamId, partition);
      if (endOffset < 0) {
        throw new LoamException(
            Kind.INVALID, "journal release needs endOffset >= 0 endOffset=" + endOffset);
      }
    }
  }

  private static void checkIds(long streamId, int partition) {
    if (streamId < 0 || partition < 0) {
      throw new LoamException(
          Kind.INVALID,
          "journal entry needs stream >= 0 and partition >= 0 stream="
              + streamId
              + " partition="
              + partition);
    }
  }

  /**
   * Checks that {@code batch} is exactly one RecordBatch v2, neither control nor transactional.
   *
   * @throws CorruptionException naming what is wrong
   */
  static RecordBatch checkBatch(byte[] batch) {
    java.util.Objects.requireNonNull(batch, "batch");
    ByteBuffer buf = ByteBuffer.wrap(batch);
    RecordBatch b = RecordBatch.readFrom(buf);
    if (buf.hasRemaining()) {
      throw new CorruptionException(
          "journal entry: bytes after the record batch trailing=" + buf.remaining());
    }
    if (b.recordCount() < 1 || b.lastOffsetDelta() != b.recordCount() - 1) {
      throw new CorruptionException(
          "journal entry: a batch needs records at dense offsets recordCount="
              + b.recordCount()
              + " lastOffsetDelta="
              + b.lastOffsetDelta());
    }
    if (b.isControl() || b.isTransactional()) {
      throw new CorruptionException(
          "journal entry: control and transactional batches are not journaled control="
              + b.isControl()
              + " transactional="
              + b.isTransactional());
    }
    return b;
  }
}
