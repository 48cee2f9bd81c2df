package dev.loam.wal.batch;

import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes records into one Kafka RecordBatch v2, field for field as kafka-clients'
 * MemoryRecordsBuilder does (docs/formats/record-batch-v2.md). With {@link Compression#NONE} the
 * output is byte-identical to Kafka's. Stateless and thread-safe.
 */
public final class RecordBatchEncoder {
  /** Kafka's NO_TIMESTAMP: the only negative timestamp a record may carry. */
  public static final long NO_TIMESTAMP = -1L;

  /** Upper bound on records per batch (lastOffsetDelta is an i32). */
  public static final int MAX_RECORDS = Integer.MAX_VALUE;

  private RecordBatchEncoder() {}

  /**
   * Encodes {@code records} as one batch.
   *
   * @return a fresh array holding exactly one batch
   * @throws LoamException INVALID if {@code records} is empty, a timestamp is negative other than
   *     -1, the compression is SNAPPY or LZ4, or the batch would exceed 2 GiB
   * @throws NullPointerException if an argument or a record is null
   */
  public static byte[] encode(BatchSettings s, List<RecordData> records) {
    if (records.isEmpty()) {
      throw new LoamException(LoamException.Kind.INVALID, "record batch must not be empty count=0");
    }
    if (s.compression() == Compression.SNAPPY || s.compression() == Compression.LZ4) {
      throw Codecs.unsupported(s.compression(), "encode");
    }
    long baseTimestamp = records.get(0).timestamp();
    long maxTimestamp = Long.MIN_VALUE;
    for (int i = 0; i < records.size(); i++) {
      long ts = records.get(i).timestamp();
      if (ts < 0 && ts != NO_TIMESTAMP) {
        // Kafka rejects these too (MemoryRecordsBuilder "Invalid negative timestamp").
        throw new LoamException(
            LoamException.Kind.INVALID,
            "record timestamp negative timestamp=" + ts + " index=" + i);
      }
      maxTimestamp = Math.max(maxTimestamp, ts);
    }

    ByteSink body = new ByteSink(64 * records.size());
    ByteSink scratch = new ByteSink(64);
    for (int i = 0; i < records.size(); i++) {
      writeRecord(body, scratch, records.get(i), i, baseTimestamp);
    }

    byte[] section;
    int sectionLen;
    if (s.compression() == Compression.NONE) {
      section = body.array();
      sectionLen = body.size();
    } else {
      section = Codecs.compress(s.compression(), body.array(), body.size());
      sectionLen = section.length;
    }

    long total = (long) RecordBatches.HEADER_SIZE + sectionLen;
    if (total > Integer.MAX_VALUE - 16) {
      throw new LoamException(LoamException.Kind.INVALID, "record batch too large size=" + total);
    }
    byte[] out = new byte[(int) total];
    int attributes =
        s.compression().code() | (s.timestampType() == TimestampType.LOG_APPEND_TIME ? 1 << 3 : 0);
    BigEndian.putLong(out, RecordBatches.BASE_OFFSET_OFFSET, s.baseOffset());
    BigEndian.putInt(out, RecordBatches.LENGTH_OFFSET, (int) total - RecordBatches.LOG_OVERHEAD);
    BigEndian.putInt(out, RecordBatches.PARTITION_LEADER_EPOCH_OFFSET, -1);
    out[RecordBatches.MAGIC_OFFSET] = RecordBatches.MAGIC;
    BigEndian.putShort(out, RecordBatches.ATTRIBUTES_OFFSET, attributes);
    BigEndian.putInt(out, RecordBatches.LAST_OFFSET_DELTA_OFFSET, records.size() - 1);
    BigEndian.putLong(out, RecordBatches.BASE_TIMESTAMP_OFFSET, baseTimestamp);
    BigEndian.putLong(out, RecordBatches.MAX_TIMESTAMP_OFFSET, maxTimestamp);
    BigEndian.putLong(out, RecordBatches.PRODUCER_ID_OFFSET, s.producerId());
    BigEndian.putShort(out, RecordBatches.PRODUCER_EPOCH_OFFSET, s.producerEpoch());
    BigEndian.putInt(out, RecordBatches.BASE_SEQUENCE_OFFSET, s.baseSequence());
    BigEndian.putInt(out, RecordBatches.RECORDS_COUNT_OFFSET, records.size());
    System.arraycopy(section, 0, out, RecordBatches.HEADER_SIZE, sectionLen);
    CRC32C crc = new CRC32C();
    crc.update(out, RecordBatches.ATTRIBUTES_OFFSET, out.length - RecordBatches.ATTRIBUTES_OFFSET);
    BigEndian.putInt(out, RecordBatches.CRC_OFFSET, (int) crc.getValue());
    return out;
  }

  private static void writeRecord(
      ByteSink out, ByteSink scratch, RecordData r, int offsetDelta, long baseTimestamp) {
    writeRecord(
        out, scratch, r.timestamp() - baseTimestamp, offsetDelta, r.key(), r.value(), r.headers());
  }

  /**
   * Writes one record of a batch's records section: its length, then attributes, timestamp and
   * offset deltas, key, value and headers (docs/formats/record-batch-v2.md). Shared with the
   * compactor's encoder, which keeps original offset deltas.
   */
  static void writeRecord(
      ByteSink out,
      ByteSink scratch,
      long timestampDelta,
      int offsetDelta,
      byte[] key,
      byte[] value,
      List<Header> headers) {
    // Kafka prefixes each record with its body length, so encode the body first.
    ByteSink b = scratch;
    b.reset();
    b.writeByte(0); // record attributes: unused
    b.writeVarlong(timestampDelta);
    b.writeVarint(offsetDelta);
    b.writeNullableBytes(key);
    b.writeNullableBytes(value);
    b.writeVarint(headers.size());
    for (Header h : headers) {
      byte[] k = h.key().getBytes(StandardCharsets.UTF_8);
      b.writeVarint(k.length);
      b.writeBytes(k, 0, k.length);
      b.writeNullableBytes(h.value());
    }
    out.writeVarint(b.size());
    out.writeBytes(b.array(), 0, b.size());
  }
}
