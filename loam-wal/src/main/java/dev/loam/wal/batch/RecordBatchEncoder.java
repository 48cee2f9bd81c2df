package dev.loam.wal.batch;

import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes records into one Kafka RecordBatch v2, field for field as kafka-clients'
 * MemoryRecordsBuilder does (docs/formats/record-batch-v2.md), with any of Kafka's codecs
 * (docs/formats/compression.md). With {@link Compression#NONE}, {@link Compression#SNAPPY} and
 * {@link Compression#LZ4} the output is byte-identical to Kafka's; gzip and zstd streams differ in
 * their compressor settings but decode to the same records. Stateless and thread-safe.
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
   *     -1, or the batch would exceed 2 GiB
   * @throws NullPointerException if an argument or a record is null
   */
  public static byte[] encode(BatchSettings s, List<RecordData> records) {
    if (records.isEmpty()) {
      throw new LoamException(LoamException.Kind.INVALID, "record batch must not be empty count=0");
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

    // Sized exactly first, so each value is copied once, straight into the output: no scratch
    // buffer per record, no growth copies, and (uncompressed) no final copy of the records.
    boolean plain = s.compression() == Compression.NONE;
    long sectionSize = 0;
    for (int i = 0; i < records.size(); i++) {
      RecordData r = records.get(i);
      sectionSize += recordSize(r.timestamp() - baseTimestamp, i, r.key(), r.value(), r.headers());
    }
    ByteSink body = ByteSink.exact((plain ? RecordBatches.HEADER_SIZE : 0) + sectionSize);
    if (plain) {
      body.skip(RecordBatches.HEADER_SIZE);
    }
    for (int i = 0; i < records.size(); i++) {
      writeRecord(body, records.get(i), i, baseTimestamp);
    }
    byte[] out;
    if (plain) {
      out = body.array();
    } else {
      byte[] section = Codecs.compress(s.compression(), body.array(), body.size());
      long total = (long) RecordBatches.HEADER_SIZE + section.length;
      if (total > ByteSink.MAX) {
        throw new LoamException(LoamException.Kind.INVALID, "record batch too large size=" + total);
      }
      out = new byte[(int) total];
      System.arraycopy(section, 0, out, RecordBatches.HEADER_SIZE, section.length);
    }
    int attributes =
        s.compression().code() | (s.timestampType() == TimestampType.LOG_APPEND_TIME ? 1 << 3 : 0);
    BigEndian.putLong(out, RecordBatches.BASE_OFFSET_OFFSET, s.baseOffset());
    BigEndian.putInt(out, RecordBatches.LENGTH_OFFSET, out.length - RecordBatches.LOG_OVERHEAD);
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
    CRC32C crc = new CRC32C();
    crc.update(out, RecordBatches.ATTRIBUTES_OFFSET, out.length - RecordBatches.ATTRIBUTES_OFFSET);
    BigEndian.putInt(out, RecordBatches.CRC_OFFSET, (int) crc.getValue());
    return out;
  }

  private static void writeRecord(ByteSink out, RecordData r, int offsetDelta, long baseTimestamp) {
    writeRecord(out, r.timestamp() - baseTimestamp, offsetDelta, r.key(), r.value(), r.headers());
  }

  /**
   * The bytes one record takes in a batch's records section, its length prefix included
   * (docs/formats/record-batch-v2.md).
   */
  static int recordSize(
      long timestampDelta, int offsetDelta, byte[] key, byte[] value, List<Header> headers) {
    int body = bodySize(timestampDelta, offsetDelta, key, value, headers);
    return ByteSink.varintSize(body) + body;
  }

  private static int bodySize(
      long timestampDelta, int offsetDelta, byte[] key, byte[] value, List<Header> headers) {
    long n =
        1 // record attributes
            + ByteSink.varlongSize(timestampDelta)
            + ByteSink.varintSize(offsetDelta)
            + ByteSink.nullableBytesSize(key)
            + ByteSink.nullableBytesSize(value)
            + ByteSink.varintSize(headers.size());
    for (Header h : headers) {
      int k = utf8Length(h.key());
      n += ByteSink.varintSize(k) + k + ByteSink.nullableBytesSize(h.value());
    }
    if (n > ByteSink.MAX) {
      throw new LoamException(LoamException.Kind.INVALID, "record too large size=" + n);
    }
    return (int) n;
  }

  private static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        n += 1; // String.getBytes(UTF_8) writes an unpaired surrogate as '?'
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * Writes one record of a batch's records section: its length, then attributes, timestamp and
   * offset deltas, key, value and headers (docs/formats/record-batch-v2.md), straight into {@code
   * out}. Shared with the compactor's encoder, which keeps original offset deltas.
   */
  static void writeRecord(
      ByteSink out,
      long timestampDelta,
      int offsetDelta,
      byte[] key,
      byte[] value,
      List<Header> headers) {
    int body = bodySize(timestampDelta, offsetDelta, key, value, headers);
    out.writeVarint(body);
    int start = out.size();
    out.writeByte(0); // record attributes: unused
    out.writeVarlong(timestampDelta);
    out.writeVarint(offsetDelta);
    out.writeNullableBytes(key);
    out.writeNullableBytes(value);
    out.writeVarint(headers.size());
    for (Header h : headers) {
      byte[] k = h.key().getBytes(StandardCharsets.UTF_8);
      out.writeVarint(k.length);
      out.writeBytes(k, 0, k.length);
      out.writeNullableBytes(h.value());
    }
    if (out.size() - start != body) {
      // The length prefix is already written: a wrong size would corrupt the batch.
      throw new LoamException(
          LoamException.Kind.INTERNAL,
          "record size mismatch computed=" + body + " written=" + (out.size() - start));
    }
  }
}
