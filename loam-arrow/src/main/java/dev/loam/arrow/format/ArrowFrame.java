package dev.loam.arrow.format;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * One arrow batch frame (docs/formats/arrow-batch-v1.md): a header naming the schema version,
 * record count and timestamp range, a column table of per-column body ranges and CRCs, and one
 * Arrow IPC encapsulated record batch message kept verbatim. Instances are views over the bytes
 * they were read from; they never copy or change them.
 */
public final class ArrowFrame {
  /** ASCII {@code LARB}. */
  public static final int MAGIC = 0x4C415242;

  /** The only frame version this code reads and writes. */
  public static final int VERSION = 1;

  /** Bytes before the column table. */
  public static final int HEADER_SIZE = 56;

  /** Bytes per column table entry. */
  public static final int COLUMN_ENTRY_SIZE = 12;

  /** The most columns a frame holds (u16 field). */
  public static final int MAX_COLUMNS = 0xffff;

  static final int F_BASE_OFFSET = 0;
  static final int F_LENGTH = 8;
  static final int F_MAGIC = 12;
  static final int F_CRC = 16;
  static final int F_VERSION = 20;
  static final int F_FLAGS = 21;
  static final int F_SCHEMA_VERSION = 22;
  static final int F_RECORD_COUNT = 24;
  static final int F_BASE_TIMESTAMP = 28;
  static final int F_MAX_TIMESTAMP = 36;
  static final int F_COLUMN_COUNT = 44;
  static final int F_RESERVED = 46;
  static final int F_METADATA_LENGTH = 48;
  static final int F_BODY_LENGTH = 52;

  private final ByteBuffer frame;
  private final long baseOffset;
  private final int schemaVersion;
  private final int recordCount;
  private final long baseTimestamp;
  private final long maxTimestamp;
  private final int[] columnOffsets;
  private final int[] columnLengths;
  private final int[] columnCrcs;
  private final int metadataLength;
  private final int bodyLength;

  private ArrowFrame(
      ByteBuffer frame,
      long baseOffset,
      int schemaVersion,
      int recordCount,
      long baseTimestamp,
      long maxTimestamp,
      int[] columnOffsets,
      int[] columnLengths,
      int[] columnCrcs,
      int metadataLength,
      int bodyLength) {
    this.frame = frame;
    this.baseOffset = baseOffset;
    this.schemaVersion = schemaVersion;
    this.recordCount = recordCount;
    this.baseTimestamp = baseTimestamp;
    this.maxTimestamp = maxTimestamp;
    this.columnOffsets = columnOffsets;
    this.columnLengths = columnLengths;
    this.columnCrcs = columnCrcs;
    this.metadataLength = metadataLength;
    this.bodyLength = bodyLength;
  }

  /**
   * Encodes a frame around one Arrow IPC encapsulated message, with base_offset 0.
   *
   * @param ipcMessage the message: {@code metadataLength} bytes of metadata, then the body
   * @param columnLengths each top-level column's byte length in the body, in schema order; they
   *     must add up to the body length
   * @throws IllegalArgumentException if a count, length or timestamp is out of range
   */
  public static byte[] encode(
      int schemaVersion,
      int recordCount,
      long baseTimestamp,
      long maxTimestamp,
      int[] columnLengths,
      byte[] ipcMessage,
      int metadataLength) {
    Objects.requireNonNull(columnLengths, "columnLengths");
    Objects.requireNonNull(ipcMessage, "ipcMessage");
    if (schemaVersion < 1 || schemaVersion > 0xffff) {
      throw new IllegalArgumentException("schema version out of range: " + schemaVersion);
    }
    if (recordCount < 1) {
      throw new IllegalArgumentException("record count must be >= 1: " + recordCount);
    }
    if (baseTimestamp > maxTimestamp) {
      throw new IllegalArgumentException("base timestamp after max timestamp");
    }
    int c = columnLengths.length;
    if (c < 1 || c > MAX_COLUMNS) {
      throw new IllegalArgumentException("column count out of range: " + c);
    }
    if (metadataLength < 8 || metadataLength % 8 != 0 || metadataLength > ipcMessage.length) {
      throw new IllegalArgumentException("metadata length invalid: " + metadataLength);
    }
    int body = ipcMessage.length - metadataLength;
    long sum = 0;
    for (int l : columnLengths) {
      if (l < 0) {
        throw new IllegalArgumentException("negative column length");
      }
      sum += l;
    }
    if (sum != body || body % 8 != 0) {
      throw new IllegalArgumentException(
          "column lengths add up to " + sum + " but the body has " + body + " bytes");
    }
    int prefix = HEADER_SIZE + COLUMN_ENTRY_SIZE * c;
    long total = (long) prefix + ipcMessage.length;
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("frame too large: " + total + " bytes");
    }
    ByteBuffer b = ByteBuffer.allocate((int) total);
    b.putLong(F_BASE_OFFSET, 0L);
    b.putInt(F_LENGTH, (int) total - 12);
    b.putInt(F_MAGIC, MAGIC);
    b.put(F_VERSION, (byte) VERSION);
    b.put(F_FLAGS, (byte) 0);
    b.putShort(F_SCHEMA_VERSION, (short) schemaVersion);
    b.putInt(F_RECORD_COUNT, recordCount);
    b.putLong(F_BASE_TIMESTAMP, baseTimestamp);
    b.putLong(F_MAX_TIMESTAMP, maxTimestamp);
    b.putShort(F_COLUMN_COUNT, (short) c);
    b.putShort(F_RESERVED, (short) 0);
    b.putInt(F_METADATA_LENGTH, metadataLength);
    b.putInt(F_BODY_LENGTH, body);
    b.put(prefix, ipcMessage);
    int bodyStart = prefix + metadataLength;
    int off = 0;
    for (int i = 0; i < c; i++) {
      int at = HEADER_SIZE + COLUMN_ENTRY_SIZE * i;
      b.putInt(at, off);
      b.putInt(at + 4, columnLengths[i]);
      b.putInt(at + 8, crc(b, bodyStart + off, columnLengths[i]));
      off += columnLengths[i];
    }
    b.putInt(F_CRC, crc(b, F_VERSION, bodyStart - F_VERSION));
    return b.array();
  }

  /**
   * Reads and fully verifies the frame at {@code buf}'s position (header CRC and every column's
   * CRC), advancing the position past it. The frame is a view of {@code buf}'s bytes.
   *
   * @throws CorruptionException if any check fails, naming the field
   * @throws LoamException INVALID for a valid frame of an unsupported version
   */
  public static ArrowFrame read(ByteBuffer buf) {
    ArrowFrame f = readPrefix(buf, true);
    for (int i = 0; i < f.columnCount(); i++) {
      f.verifyColumn(i, f.column(i));
    }
    buf.position(buf.position() + f.size());
    return f;
  }

  /** Reads every frame of a chunk or data region, fully verified, until {@code buf} is empty. */
  public static List<ArrowFrame> readAll(ByteBuffer buf) {
    ByteBuffer b = buf.slice();
    if (!b.hasRemaining()) {
      throw new CorruptionException("arrow chunk empty: no frame");
    }
    List<ArrowFrame> out = new ArrayList<>();
    while (b.hasRemaining()) {
      out.add(read(b));
    }
    return out;
  }

  /**
   * Reads a frame's prefix (header, column table and IPC metadata) from {@code buf}'s position,
   * verifying the header CRC but not the columns, and does not advance the position. With {@code
   * wholeFrame} the buffer must hold the whole frame (its body too); without it, only the prefix is
   * needed, and the body views ({@link #column}, {@link #body}, {@link #ipcMessage}) may not be
   * used: the caller fetches the columns it needs and checks them with {@link #verifyColumn}.
   *
   * @throws CorruptionException if any check fails, naming the field
   * @throws LoamException INVALID for a valid frame of an unsupported version
   */
  public static ArrowFrame readPrefix(ByteBuffer buf, boolean wholeFrame) {
    ByteBuffer b = buf.slice().order(ByteOrder.BIG_ENDIAN);
    if (b.remaining() < HEADER_SIZE) {
      throw new CorruptionException(
          "arrow frame truncated: " + b.remaining() + " bytes, header needs " + HEADER_SIZE);
    }
    int magic = b.getInt(F_MAGIC);
    if (magic != MAGIC) {
      throw new CorruptionException(
          "arrow frame magic expected=0x4c415242 actual=0x" + Integer.toHexString(magic));
    }
    long length = Integer.toUnsignedLong(b.getInt(F_LENGTH));
    int c = b.getShort(F_COLUMN_COUNT) & 0xffff;
    if (c < 1) {
      throw new CorruptionException("arrow frame column_count=0");
    }
    long metadata = Integer.toUnsignedLong(b.getInt(F_METADATA_LENGTH));
    long body = Integer.toUnsignedLong(b.getInt(F_BODY_LENGTH));
    long prefix = HEADER_SIZE + (long) COLUMN_ENTRY_SIZE * c + metadata;
    if (length != prefix + body - 12) {
      throw new CorruptionException(
          "arrow frame frame_length="
              + length
              + " expected="
              + (prefix + body - 12)
              + " (44 + 12*column_count + metadata_length + body_length)");
    }
    if (prefix > b.remaining()) {
      throw new CorruptionException(
          "arrow frame truncated: " + b.remaining() + " bytes, prefix needs " + prefix);
    }
    if (wholeFrame && length + 12 > b.remaining()) {
      throw new CorruptionException(
          "arrow frame truncated: " + b.remaining() + " bytes, frame needs " + (length + 12));
    }
    int stored = b.getInt(F_CRC);
    int actual = crc(b, F_VERSION, (int) prefix - F_VERSION);
    if (stored != actual) {
      throw new CorruptionException(
          "arrow frame header_crc32c expected=0x"
              + Integer.toHexString(stored)
              + " actual=0x"
              + Integer.toHexString(actual));
    }
    int version = b.get(F_VERSION) & 0xff;
    if (version != VERSION) {
      throw new LoamException(Kind.INVALID, "unsupported arrow frame version=" + version);
    }
    checkZero("flags", b.get(F_FLAGS) & 0xff);
    checkZero("reserved", b.getShort(F_RESERVED) & 0xffff);
    int schemaVersion = b.getShort(F_SCHEMA_VERSION) & 0xffff;
    if (schemaVersion < 1) {
      throw new CorruptionException("arrow frame schema_version=0");
    }
    int count = b.getInt(F_RECORD_COUNT);
    if (count < 1) {
      throw new CorruptionException("arrow frame record_count=" + count + " (must be >= 1)");
    }
    long baseTs = b.getLong(F_BASE_TIMESTAMP);
    long maxTs = b.getLong(F_MAX_TIMESTAMP);
    if (baseTs > maxTs) {
      throw new CorruptionException(
          "arrow frame base_timestamp=" + baseTs + " after max_timestamp=" + maxTs);
    }
    if (metadata < 8 || metadata % 8 != 0) {
      throw new CorruptionException("arrow frame metadata_length=" + metadata);
    }
    if (body % 8 != 0) {
      throw new CorruptionException("arrow frame body_length=" + body + " (not 8-aligned)");
    }
    int[] offsets = new int[c];
    int[] lengths = new int[c];
    int[] crcs = new int[c];
    long expected = 0;
    for (int i = 0; i < c; i++) {
      int at = HEADER_SIZE + COLUMN_ENTRY_SIZE * i;
      long off = Integer.toUnsignedLong(b.getInt(at));
      long len = Integer.toUnsignedLong(b.getInt(at + 4));
      if (off != expected) {
        throw new CorruptionException(
            "arrow frame column " + i + " body_offset=" + off + " expected=" + expected);
      }
      expected = off + len;
      offsets[i] = (int) off;
      lengths[i] = (int) len;
      crcs[i] = b.getInt(at + 8);
    }
    if (expected != body) {
      throw new CorruptionException(
          "arrow frame columns end at " + expected + " but body_length=" + body);
    }
    int size = (int) (length + 12);
    ByteBuffer view = b.slice(0, wholeFrame ? size : (int) prefix);
    return new ArrowFrame(
        view,
        b.getLong(F_BASE_OFFSET),
        schemaVersion,
        count,
        baseTs,
        maxTs,
        offsets,
        lengths,
        crcs,
        (int) metadata,
        (int) body);
  }

  private static void checkZero(String field, int v) {
    if (v != 0) {
      throw new CorruptionException("arrow frame " + field + "=" + v + " (reserved, must be 0)");
    }
  }

  /**
   * Checks that {@code bytes} (the column's bytes, exactly its length) match column {@code i}'s
   * CRC.
   *
   * @throws CorruptionException naming the column on a length or CRC mismatch
   */
  public void verifyColumn(int i, ByteBuffer bytes) {
    if (bytes.remaining() != columnLengths[i]) {
      throw new CorruptionException(
          "arrow frame column "
              + i
              + " length expected="
              + columnLengths[i]
              + " actual="
              + bytes.remaining());
    }
    int actual = crc(bytes, bytes.position(), bytes.remaining());
    if (actual != columnCrcs[i]) {
      throw new CorruptionException(
          "arrow frame column "
              + i
              + " crc32c expected=0x"
              + Integer.toHexString(columnCrcs[i])
              + " actual=0x"
              + Integer.toHexString(actual));
    }
  }

  private static int crc(ByteBuffer b, int from, int length) {
    CRC32C c = new CRC32C();
    c.update(b.duplicate().position(from).limit(from + length));
    return (int) c.getValue();
  }

  /** Writes {@code offset} into the base_offset field of the frame starting at {@code at}. */
  public static void patchBaseOffset(byte[] bytes, int at, long offset) {
    ByteBuffer.wrap(bytes).putLong(at + F_BASE_OFFSET, offset);
  }

  /** The base_offset field: 0 in a WAL chunk, the first record's offset in a segment. */
  public long baseOffset() {
    return baseOffset;
  }

  /** The stream schema version the batch was written with. */
  public int schemaVersion() {
    return schemaVersion;
  }

  /** The records in the batch. */
  public int recordCount() {
    return recordCount;
  }

  /** The smallest record timestamp. */
  public long baseTimestamp() {
    return baseTimestamp;
  }

  /** The largest record timestamp. */
  public long maxTimestamp() {
    return maxTimestamp;
  }

  /** The top-level columns, system columns included. */
  public int columnCount() {
    return columnLengths.length;
  }

  /** Column {@code i}'s offset in the body. */
  public int columnOffset(int i) {
    return columnOffsets[i];
  }

  /** Column {@code i}'s byte length in the body. */
  public int columnLength(int i) {
    return columnLengths[i];
  }

  /** The bytes before the body: header, column table and IPC metadata. */
  public int prefixLength() {
    return HEADER_SIZE + COLUMN_ENTRY_SIZE * columnLengths.length + metadataLength;
  }

  /** The IPC metadata length (continuation, length, flatbuffer, padding). */
  public int metadataLength() {
    return metadataLength;
  }

  /** The IPC body length. */
  public int bodyLength() {
    return bodyLength;
  }

  /** The whole frame's size in bytes. */
  public int size() {
    return prefixLength() + bodyLength;
  }

  /** The IPC metadata bytes, a view. */
  public ByteBuffer ipcMetadata() {
    int from = HEADER_SIZE + COLUMN_ENTRY_SIZE * columnLengths.length;
    return frame.slice(from, metadataLength);
  }

  /** The whole IPC message (metadata then body), a view; needs the whole frame. */
  public ByteBuffer ipcMessage() {
    int from = HEADER_SIZE + COLUMN_ENTRY_SIZE * columnLengths.length;
    return frame.slice(from, metadataLength + bodyLength);
  }

  /** The IPC body, a view; needs the whole frame. */
  public ByteBuffer body() {
    return frame.slice(prefixLength(), bodyLength);
  }

  /** Column {@code i}'s body bytes, a view; needs the whole frame. */
  public ByteBuffer column(int i) {
    return frame.slice(prefixLength() + columnOffsets[i], columnLengths[i]);
  }

  /** The frame's bytes (the prefix only, for a frame read with {@link #readPrefix} alone). */
  public ByteBuffer bytes() {
    return frame.duplicate();
  }
}
