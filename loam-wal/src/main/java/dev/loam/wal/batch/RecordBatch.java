package dev.loam.wal.batch;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A flyweight view over the bytes of exactly one Kafka RecordBatch v2
 * (docs/formats/record-batch-v2.md). Header accessors read the shared bytes on each call, so a base
 * offset patched in place ({@link RecordBatches#setBaseOffset}) is visible. Immutable view; safe to
 * share between threads as long as nobody writes the underlying bytes concurrently.
 */
public final class RecordBatch {
  /** Upper bound on a batch's decompressed records section, against compression bombs. */
  public static final int MAX_UNCOMPRESSED_RECORDS_BYTES = 64 * 1024 * 1024;

  private static final int ATTR_COMPRESSION_MASK = 0x07;
  private static final int ATTR_TIMESTAMP_TYPE = 0x08;
  private static final int ATTR_TRANSACTIONAL = 0x10;
  private static final int ATTR_CONTROL = 0x20;
  private static final int ATTR_DELETE_HORIZON = 0x40;

  private final ByteBuffer buf; // exactly this batch, position 0, big-endian
  private final int position; // where the batch started in the caller's buffer, for messages

  private RecordBatch(ByteBuffer buf, int position) {
    this.buf = buf;
    this.position = position;
  }

  /**
   * Reads and validates the batch at {@code buf.position()} and advances the position past it.
   * Validates: at least 61 bytes remain, batchLength within range, magic = 2, CRC-32C, compression
   * code, recordCount and lastOffsetDelta non-negative. Records are validated by {@link
   * #records()}.
   *
   * @return a view sharing {@code buf}'s bytes
   * @throws CorruptionException naming the failed field; the buffer position is then unchanged
   */
  public static RecordBatch readFrom(ByteBuffer buf) {
    int start = buf.position();
    int remaining = buf.remaining();
    if (remaining < RecordBatches.HEADER_SIZE) {
      throw new CorruptionException(
          "record batch truncated header need="
              + RecordBatches.HEADER_SIZE
              + " remaining="
              + remaining
              + " at position="
              + start);
    }
    ByteBuffer all = buf.slice(start, remaining).order(ByteOrder.BIG_ENDIAN);
    int batchLength = all.getInt(RecordBatches.LENGTH_OFFSET);
    int minLength = RecordBatches.HEADER_SIZE - RecordBatches.LOG_OVERHEAD;
    int maxLength = remaining - RecordBatches.LOG_OVERHEAD;
    if (batchLength < minLength || batchLength > maxLength) {
      throw new CorruptionException(
          "record batch batchLength out of range batchLength="
              + batchLength
              + " min="
              + minLength
              + " max="
              + maxLength
              + " at position="
              + start);
    }
    byte magic = all.get(RecordBatches.MAGIC_OFFSET);
    if (magic != RecordBatches.MAGIC) {
      throw new CorruptionException(
          "record batch magic mismatch expected=2 actual=" + magic + " at position=" + start);
    }
    int size = batchLength + RecordBatches.LOG_OVERHEAD;
    ByteBuffer mine = all.slice(0, size).order(ByteOrder.BIG_ENDIAN);
    int stored = mine.getInt(RecordBatches.CRC_OFFSET);
    CRC32C crc = new CRC32C();
    crc.update(mine.slice(RecordBatches.ATTRIBUTES_OFFSET, size - RecordBatches.ATTRIBUTES_OFFSET));
    int actual = (int) crc.getValue();
    if (stored != actual) {
      throw new CorruptionException(
          String.format(
              "record batch crc mismatch expected=0x%08x actual=0x%08x at position=%d",
              stored, actual, start));
    }
    RecordBatch b = new RecordBatch(mine, start);
    int compression = b.attributes() & ATTR_COMPRESSION_MASK;
    if (compression > Compression.ZSTD.code()) {
      throw new CorruptionException(
          "record batch attributes has unknown compression code="
              + compression
              + " expected=0..4 at position="
              + start);
    }
    if (b.recordCount() < 0) {
      throw new CorruptionException(
          "record batch recordCount negative recordCount="
              + b.recordCount()
              + " at position="
              + start);
    }
    if (b.lastOffsetDelta() < 0) {
      throw new CorruptionException(
          "record batch lastOffsetDelta negative lastOffsetDelta="
              + b.lastOffsetDelta()
              + " at position="
              + start);
    }
    buf.position(start + size);
    return b;
  }

  /** Offset of the first record (may have been patched in place). */
  public long baseOffset() {
    return buf.getLong(RecordBatches.BASE_OFFSET_OFFSET);
  }

  /** Offset of the last record minus the base offset. */
  public int lastOffsetDelta() {
    return buf.getInt(RecordBatches.LAST_OFFSET_DELTA_OFFSET);
  }

  /** Offset of the last record. */
  public long lastOffset() {
    return baseOffset() + lastOffsetDelta();
  }

  /** Number of records, as declared in the header. */
  public int recordCount() {
    return buf.getInt(RecordBatches.RECORDS_COUNT_OFFSET);
  }

  /** Leader epoch stamped by a Kafka broker; -1 from clients and from Loam. */
  public int partitionLeaderEpoch() {
    return buf.getInt(RecordBatches.PARTITION_LEADER_EPOCH_OFFSET);
  }

  /** The first record's timestamp (or Kafka's delete horizon if {@link #hasDeleteHorizon()}). */
  public long baseTimestamp() {
    return buf.getLong(RecordBatches.BASE_TIMESTAMP_OFFSET);
  }

  /** The largest record timestamp; the append time for LOG_APPEND_TIME batches. */
  public long maxTimestamp() {
    return buf.getLong(RecordBatches.MAX_TIMESTAMP_OFFSET);
  }

  /** Idempotent producer id, -1 if none. */
  public long producerId() {
    return buf.getLong(RecordBatches.PRODUCER_ID_OFFSET);
  }

  /** Idempotent producer epoch, -1 if none. */
  public short producerEpoch() {
    return buf.getShort(RecordBatches.PRODUCER_EPOCH_OFFSET);
  }

  /** Sequence number of the first record, -1 if none. */
  public int baseSequence() {
    return buf.getInt(RecordBatches.BASE_SEQUENCE_OFFSET);
  }

  /**
   * Sequence number of the last record, -1 if none. Sequences wrap from Integer.MAX_VALUE to 0, as
   * in Kafka's DefaultRecordBatch.incrementSequence.
   */
  public int lastSequence() {
    int base = baseSequence();
    if (base == -1) {
      return -1;
    }
    int increment = lastOffsetDelta();
    if (base > Integer.MAX_VALUE - increment) {
      return increment - (Integer.MAX_VALUE - base) - 1;
    }
    return base + increment;
  }

  /** The raw 16-bit attributes. */
  public short attributes() {
    return buf.getShort(RecordBatches.ATTRIBUTES_OFFSET);
  }

  /** The records section's codec. */
  public Compression compression() {
    return Compression.fromCode(attributes() & ATTR_COMPRESSION_MASK);
  }

  /** Who chose the record timestamps. */
  public TimestampType timestampType() {
    return (attributes() & ATTR_TIMESTAMP_TYPE) != 0
        ? TimestampType.LOG_APPEND_TIME
        : TimestampType.CREATE_TIME;
  }

  /** Whether the batch belongs to a transaction. */
  public boolean isTransactional() {
    return (attributes() & ATTR_TRANSACTIONAL) != 0;
  }

  /** Whether this is a transaction control batch (commit/abort markers). */
  public boolean isControl() {
    return (attributes() & ATTR_CONTROL) != 0;
  }

  /** Whether Kafka's log cleaner set a delete horizon in baseTimestamp. */
  public boolean hasDeleteHorizon() {
    return (attributes() & ATTR_DELETE_HORIZON) != 0;
  }

  /** Total size of the batch in bytes, header included. */
  public int sizeInBytes() {
    return buf.limit();
  }

  /** A read-only view of exactly this batch's bytes, position 0. */
  public ByteBuffer bytes() {
    return buf.asReadOnlyBuffer().order(ByteOrder.BIG_ENDIAN);
  }

  /**
   * Decompresses and decodes every record, validating the records section: varints well formed,
   * lengths in range, each record's length consumed exactly, offset deltas increasing and at most
   * lastOffsetDelta, exactly recordCount records and no trailing bytes.
   *
   * @return fresh records with absolute offsets and timestamps (LOG_APPEND_TIME: maxTimestamp)
   * @throws CorruptionException naming the failed field, or naming the codec if the records section
   *     does not decompress or decompresses to more than {@link #MAX_UNCOMPRESSED_RECORDS_BYTES}
   */
  public List<Record> records() {
    String where = "at position=" + position;
    Compression c = compression();
    ByteBuffer section =
        buf.slice(RecordBatches.RECORDS_OFFSET, buf.limit() - RecordBatches.RECORDS_OFFSET);
    if (c != Compression.NONE) {
      section = Codecs.decompress(c, section, MAX_UNCOMPRESSED_RECORDS_BYTES, where);
    }
    RecordsReader r = new RecordsReader(section, where);
    int count = recordCount();
    long baseOffset = baseOffset();
    long baseTimestamp = baseTimestamp();
    boolean logAppend = timestampType() == TimestampType.LOG_APPEND_TIME;
    long maxTimestamp = maxTimestamp();
    int lastOffsetDelta = lastOffsetDelta();
    // Every record takes at least 7 bytes; do not let a bad count size the list.
    List<Record> out = new ArrayList<>(Math.min(count, r.remaining() / 7 + 1));
    int prevDelta = -1;
    for (int i = 0; i < count; i++) {
      if (r.remaining() == 0) {
        throw r.corrupt("record batch recordCount mismatch expected=" + count + " actual=" + i);
      }
      int length = r.readVarint("length");
      if (length < 0 || length > r.remaining()) {
        throw r.corrupt(
            "record length out of range length="
                + length
                + " remaining="
                + r.remaining()
                + " index="
                + i);
      }
      int end = r.position() + length;
      int outerLimit = r.limit();
      r.limit(end);
      r.readByte("attributes");
      long timestampDelta = r.readVarlong("timestampDelta");
      int offsetDelta = r.readVarint("offsetDelta");
      if (offsetDelta <= prevDelta || offsetDelta > lastOffsetDelta) {
        throw r.corrupt(
            "record offsetDelta out of order offsetDelta="
                + offsetDelta
                + " previous="
                + prevDelta
                + " lastOffsetDelta="
                + lastOffsetDelta
                + " index="
                + i);
      }
      prevDelta = offsetDelta;
      byte[] key = r.readNullableBytes("keyLength");
      byte[] value = r.readNullableBytes("valueLength");
      int headerCount = r.readVarint("headerCount");
      // A header takes at least 2 bytes (two varint lengths).
      if (headerCount < 0 || headerCount > r.remaining() / 2) {
        throw r.corrupt(
            "record headerCount out of range headerCount="
                + headerCount
                + " remaining="
                + r.remaining()
                + " index="
                + i);
      }
      List<Header> headers;
      if (headerCount == 0) {
        headers = List.of();
      } else {
        List<Header> hs = new ArrayList<>(headerCount);
        for (int h = 0; h < headerCount; h++) {
          int keyLength = r.readVarint("headerKeyLength");
          if (keyLength < 0) {
            throw r.corrupt(
                "record headerKeyLength negative headerKeyLength=" + keyLength + " index=" + i);
          }
          // Lenient UTF-8 decoding, like Kafka's Utils.utf8.
          String hk = new String(r.readBytes(keyLength, "headerKey"), StandardCharsets.UTF_8);
          hs.add(new Header(hk, r.readNullableBytes("headerValueLength")));
        }
        headers = Collections.unmodifiableList(hs);
      }
      if (r.position() != end) {
        throw r.corrupt(
            "record length mismatch length="
                + length
                + " consumed="
                + (length - (end - r.position()))
                + " index="
                + i);
      }
      r.limit(outerLimit);
      long timestamp = logAppend ? maxTimestamp : baseTimestamp + timestampDelta;
      out.add(new Record(baseOffset + offsetDelta, timestamp, key, value, headers));
    }
    if (r.remaining() != 0) {
      throw r.corrupt(
          "record batch trailing bytes after last record remaining="
              + r.remaining()
              + " recordCount="
              + count);
    }
    return Collections.unmodifiableList(out);
  }

  @Override
  public String toString() {
    return "RecordBatch[baseOffset="
        + baseOffset()
        + ", lastOffsetDelta="
        + lastOffsetDelta()
        + ", recordCount="
        + recordCount()
        + ", compression="
        + compression()
        + ", sizeInBytes="
        + sizeInBytes()
        + "]";
  }
}
