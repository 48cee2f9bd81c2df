package dev.loam.wal.batch;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.BigEndian;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Re-encodes the records a compaction keeps into one RecordBatch v2 whose offsets are the records'
 * original ones (docs/design/maintenance.md "Compacted streams"): baseOffset and per-record offset
 * deltas are taken from the records, and {@code lastOffsetDelta} may reach past the last record so
 * that consecutive batches tile the offsets, as Kafka's log cleaner keeps a cleaned batch's offset
 * span. A batch may be empty (record count 0) when its whole span was compacted away. It can carry
 * Kafka's delete horizon (attribute bit 6, KIP-534): the baseTimestamp field then holds the horizon
 * and record timestamps stay exact through their deltas. No producer fields are written (producer
 * state lives in the metastore). Stateless and thread-safe.
 */
public final class CompactedBatchEncoder {
  private static final int ATTR_TIMESTAMP_TYPE = 0x08;
  private static final int ATTR_DELETE_HORIZON = 0x40;

  private CompactedBatchEncoder() {}

  /**
   * Encodes {@code records} as one batch spanning {@code [baseOffset, baseOffset + lastOffsetDelta
   * + 1)}.
   *
   * @param records kept records with absolute offsets, strictly increasing, inside the span; may be
   *     empty (then the batch is written uncompressed with timestamps -1, like Kafka's empty
   *     batches)
   * @param compression the codec of the records section, any of Kafka's; compaction passes the
   *     source batches' codec, so a compacted stream keeps its compression
   * @param timestampType the source batches' type; for LOG_APPEND_TIME every record's timestamp
   *     must be the same and becomes the batch's maxTimestamp
   * @param deleteHorizonMillis the delete horizon to store, or -1 for none
   * @throws LoamException INVALID if an offset is outside the span or out of order, a timestamp is
   *     negative other than -1, LOG_APPEND_TIME records disagree on their timestamp, or {@code
   *     lastOffsetDelta < 0}
   */
  public static byte[] encode(
      long baseOffset,
      int lastOffsetDelta,
      Compression compression,
      TimestampType timestampType,
      long deleteHorizonMillis,
      List<Record> records) {
    if (baseOffset < 0 || lastOffsetDelta < 0) {
      throw new LoamException(
          Kind.INVALID,
          "compacted batch needs baseOffset >= 0 and lastOffsetDelta >= 0 baseOffset="
              + baseOffset
              + " lastOffsetDelta="
              + lastOffsetDelta);
    }
    boolean logAppend = timestampType == TimestampType.LOG_APPEND_TIME;
    long maxTimestamp = -1;
    long prevOffset = baseOffset - 1;
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      if (r.offset() <= prevOffset || r.offset() - baseOffset > lastOffsetDelta) {
        throw new LoamException(
            Kind.INVALID,
            "compacted batch record offset out of order or outside the span offset="
                + r.offset()
                + " baseOffset="
                + baseOffset
                + " lastOffsetDelta="
                + lastOffsetDelta);
      }
      prevOffset = r.offset();
      if (r.timestamp() < 0 && r.timestamp() != RecordBatchEncoder.NO_TIMESTAMP) {
        throw new LoamException(
            Kind.INVALID, "record timestamp negative timestamp=" + r.timestamp() + " index=" + i);
      }
      if (logAppend && i > 0 && r.timestamp() != records.get(0).timestamp()) {
        throw new LoamException(
            Kind.INVALID,
            "LOG_APPEND_TIME records of one batch must share their timestamp first="
                + records.get(0).timestamp()
                + " other="
                + r.timestamp());
      }
      maxTimestamp = Math.max(maxTimestamp, r.timestamp());
    }
    boolean empty = records.isEmpty();
    Compression c = empty ? Compression.NONE : compression;
    long baseTimestamp =
        deleteHorizonMillis >= 0 ? deleteHorizonMillis : empty ? -1 : records.get(0).timestamp();

    long sectionSize = 0;
    for (Record r : records) {
      sectionSize +=
          RecordBatchEncoder.recordSize(
              r.timestamp() - baseTimestamp,
              (int) (r.offset() - baseOffset),
              r.key(),
              r.value(),
              r.headers());
    }
    ByteSink body = ByteSink.exact(sectionSize);
    for (Record r : records) {
      writeRecord(body, r, (int) (r.offset() - baseOffset), baseTimestamp);
    }
    byte[] section;
    int sectionLen;
    if (c == Compression.NONE) {
      section = body.array();
      sectionLen = body.size();
    } else {
      section = Codecs.compress(c, body.array(), body.size());
      sectionLen = section.length;
    }
    long total = (long) RecordBatches.HEADER_SIZE + sectionLen;
    if (total > Integer.MAX_VALUE - 16) {
      throw new LoamException(Kind.INVALID, "record batch too large size=" + total);
    }
    byte[] out = new byte[(int) total];
    int attributes =
        c.code()
            | (logAppend ? ATTR_TIMESTAMP_TYPE : 0)
            | (deleteHorizonMillis >= 0 ? ATTR_DELETE_HORIZON : 0);
    BigEndian.putLong(out, RecordBatches.BASE_OFFSET_OFFSET, baseOffset);
    BigEndian.putInt(out, RecordBatches.LENGTH_OFFSET, (int) total - RecordBatches.LOG_OVERHEAD);
    BigEndian.putInt(out, RecordBatches.PARTITION_LEADER_EPOCH_OFFSET, -1);
    out[RecordBatches.MAGIC_OFFSET] = RecordBatches.MAGIC;
    BigEndian.putShort(out, RecordBatches.ATTRIBUTES_OFFSET, attributes);
    BigEndian.putInt(out, RecordBatches.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
    BigEndian.putLong(out, RecordBatches.BASE_TIMESTAMP_OFFSET, baseTimestamp);
    BigEndian.putLong(out, RecordBatches.MAX_TIMESTAMP_OFFSET, maxTimestamp);
    BigEndian.putLong(out, RecordBatches.PRODUCER_ID_OFFSET, -1L);
    BigEndian.putShort(out, RecordBatches.PRODUCER_EPOCH_OFFSET, -1);
    BigEndian.putInt(out, RecordBatches.BASE_SEQUENCE_OFFSET, -1);
    BigEndian.putInt(out, RecordBatches.RECORDS_COUNT_OFFSET, records.size());
    System.arraycopy(section, 0, out, RecordBatches.HEADER_SIZE, sectionLen);
    CRC32C crc = new CRC32C();
    crc.update(out, RecordBatches.ATTRIBUTES_OFFSET, out.length - RecordBatches.ATTRIBUTES_OFFSET);
    BigEndian.putInt(out, RecordBatches.CRC_OFFSET, (int) crc.getValue());
    return out;
  }

  /** The delete horizon a batch carries (attribute bit 6), or -1 if it has none. */
  public static long deleteHorizon(RecordBatch b) {
    return b.hasDeleteHorizon() ? b.baseTimestamp() : -1;
  }

  private static void writeRecord(ByteSink out, Record r, int offsetDelta, long baseTimestamp) {
    RecordBatchEncoder.writeRecord(
        out, r.timestamp() - baseTimestamp, offsetDelta, r.key(), r.value(), r.headers());
  }
}
