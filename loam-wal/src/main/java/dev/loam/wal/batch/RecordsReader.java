package dev.loam.wal.batch;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;

/**
 * Bounds-checked reader over a record section. Every read names the field it reads so a failure
 * becomes a {@link CorruptionException} saying which field was bad, never an unchecked
 * BufferUnderflowException.
 */
final class RecordsReader {
  private final ByteBuffer buf;
  private final String where;
  private int pos;
  private int limit;

  RecordsReader(ByteBuffer buf, String where) {
    this.buf = buf;
    this.where = where;
    this.pos = buf.position();
    this.limit = buf.limit();
  }

  int position() {
    return pos;
  }

  int remaining() {
    return limit - pos;
  }

  int limit() {
    return limit;
  }

  void limit(int newLimit) {
    limit = newLimit;
  }

  CorruptionException corrupt(String msg) {
    return new CorruptionException(msg + " " + where);
  }

  byte readByte(String field) {
    if (pos >= limit) {
      throw corrupt("record truncated reading " + field + " remaining=0");
    }
    return buf.get(pos++);
  }

  /** Kafka ByteUtils.readVarint, with at most 5 bytes. */
  int readVarint(String field) {
    int value = 0;
    int shift = 0;
    int b;
    while (((b = readByte(field)) & 0x80) != 0) {
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 28) {
        throw corrupt("record varint too long field=" + field);
      }
    }
    value |= b << shift;
    return (value >>> 1) ^ -(value & 1);
  }

  /** Kafka ByteUtils.readVarlong, with at most 10 bytes. */
  long readVarlong(String field) {
    long value = 0L;
    int shift = 0;
    long b;
    while (((b = readByte(field)) & 0x80) != 0) {
      value |= (b & 0x7f) << shift;
      shift += 7;
      if (shift > 63) {
        throw corrupt("record varlong too long field=" + field);
      }
    }
    value |= b << shift;
    return (value >>> 1) ^ -(value & 1);
  }

  byte[] readBytes(int len, String field) {
    if (len < 0 || len > remaining()) {
      throw corrupt(
          "record field length out of range field="
              + field
              + " length="
              + len
              + " remaining="
              + remaining());
    }
    byte[] out = new byte[len];
    buf.get(pos, out, 0, len);
    pos += len;
    return out;
  }

  /** A varint length (-1 = null) followed by that many bytes. */
  byte[] readNullableBytes(String field) {
    int len = readVarint(field);
    if (len == -1) {
      return null;
    }
    if (len < -1) {
      throw corrupt("record field length negative field=" + field + " length=" + len);
    }
    return readBytes(len, field);
  }
}
