package dev.loam.wal.batch;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Operations on concatenated Kafka RecordBatch v2 bytes (a WAL chunk, a fetch response), and the
 * batch layout constants (docs/formats/record-batch-v2.md).
 */
public final class RecordBatches {
  // Field offsets, chained as in Kafka's DefaultRecordBatch so each follows from the previous.
  static final int BASE_OFFSET_OFFSET = 0;
  static final int LENGTH_OFFSET = BASE_OFFSET_OFFSET + 8;

  /** baseOffset + batchLength: the bytes not counted in batchLength. */
  static final int LOG_OVERHEAD = LENGTH_OFFSET + 4;

  static final int PARTITION_LEADER_EPOCH_OFFSET = LOG_OVERHEAD;
  static final int MAGIC_OFFSET = PARTITION_LEADER_EPOCH_OFFSET + 4;
  static final int CRC_OFFSET = MAGIC_OFFSET + 1;
  // The CRC starts here: fields before it may be rewritten by the log without recomputing it.
  static final int ATTRIBUTES_OFFSET = CRC_OFFSET + 4;
  static final int LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + 2;
  static final int BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + 4;
  static final int MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + 8;
  static final int PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + 8;
  static final int PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + 8;
  static final int BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + 2;
  static final int RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + 4;
  static final int RECORDS_OFFSET = RECORDS_COUNT_OFFSET + 4;

  /** Size of the fixed batch header: 61 bytes. */
  public static final int HEADER_SIZE = RECORDS_OFFSET;

  static final byte MAGIC = 2;

  private RecordBatches() {}

  /**
   * Parses every batch in {@code concatenated} (position to limit), validating each header and CRC
   * ({@link RecordBatch#readFrom}). The buffer's position is advanced to its limit. A truncated
   * last batch is corruption, not silently dropped: WAL chunks hold whole batches only.
   *
   * @return flyweight views sharing the buffer's bytes
   * @throws CorruptionException if any batch fails validation; the message gives its position
   */
  public static List<RecordBatch> parseAll(ByteBuffer concatenated) {
    List<RecordBatch> out = new ArrayList<>();
    while (concatenated.hasRemaining()) {
      out.add(RecordBatch.readFrom(concatenated));
    }
    return out;
  }

  /**
   * Writes {@code baseOffset} into the batch starting at {@code batchStart}, in place. The field
   * lies outside the batch CRC (Kafka's design), so the batch stays valid: this is how Loam stamps
   * sequencer-assigned offsets without re-encoding.
   *
   * @throws LoamException INVALID if {@code batchStart} does not leave room for a batch header
   */
  public static void setBaseOffset(byte[] bytes, int batchStart, long baseOffset) {
    if (batchStart < 0 || batchStart > bytes.length - HEADER_SIZE) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "record batch start out of range batchStart=" + batchStart + " length=" + bytes.length);
    }
    BigEndian.putLong(bytes, batchStart + BASE_OFFSET_OFFSET, baseOffset);
  }
}
