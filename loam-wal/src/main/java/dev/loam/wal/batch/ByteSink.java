package dev.loam.wal.batch;

import dev.loam.error.LoamException;
import java.util.Arrays;

/** A growable big-endian byte buffer with Kafka's varint encodings; single-threaded. */
final class ByteSink {
  // Arrays cannot exceed this on common JVMs; a batch this large is a caller bug anyway.
  static final int MAX = Integer.MAX_VALUE - 16;

  private byte[] buf;
  private int size;

  ByteSink(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  /**
   * A sink whose array is exactly {@code capacity} bytes, for callers that computed the size: once
   * full, {@link #array()} is the result, with no copy.
   */
  static ByteSink exact(long capacity) {
    if (capacity > MAX) {
      throw new LoamException(
          LoamException.Kind.INVALID, "record batch too large size=" + capacity + " max=" + MAX);
    }
    ByteSink s = new ByteSink(16);
    s.buf = new byte[(int) capacity];
    return s;
  }

  void reset() {
    size = 0;
  }

  /** Leaves {@code n} zero bytes to be filled in later through {@link #array()}. */
  void skip(int n) {
    ensure(n);
    size += n;
  }

  /** Bytes {@link #writeVarint} takes for {@code value}. */
  static int varintSize(int value) {
    int v = (value << 1) ^ (value >> 31);
    int bytes = 1;
    while ((v & 0xffffff80) != 0) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  /** Bytes {@link #writeVarlong} takes for {@code value}. */
  static int varlongSize(long value) {
    long v = (value << 1) ^ (value >> 63);
    int bytes = 1;
    while ((v & 0xffffffffffffff80L) != 0L) {
      bytes++;
      v >>>= 7;
    }
    return bytes;
  }

  /** Bytes {@link #writeNullableBytes} takes for {@code b}. */
  static long nullableBytesSize(byte[] b) {
    return b == null ? 1 : varintSize(b.length) + (long) b.length;
  }

  int size() {
    return size;
  }

  byte[] array() {
    return buf;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  private void ensure(int extra) {
    long need = (long) size + extra;
    if (need > MAX) {
      throw new LoamException(
          LoamException.Kind.INVALID, "record batch too large size=" + need + " max=" + MAX);
    }
    if (need > buf.length) {
      buf = Arrays.copyOf(buf, (int) Math.min(MAX, Math.max(need, 2L * buf.length)));
    }
  }

  void writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void writeBytes(byte[] b, int off, int len) {
    ensure(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
  }

  /** Kafka ByteUtils.writeVarint: zig-zag, then 7-bit groups, least significant first. */
  void writeVarint(int value) {
    int v = (value << 1) ^ (value >> 31);
    while ((v & 0xffffff80) != 0) {
      writeByte((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    writeByte(v);
  }

  /** Kafka ByteUtils.writeVarlong. */
  void writeVarlong(long value) {
    long v = (value << 1) ^ (value >> 63);
    while ((v & 0xffffffffffffff80L) != 0L) {
      writeByte(((int) v & 0x7f) | 0x80);
      v >>>= 7;
    }
    writeByte((int) v);
  }

  /** Length-prefixed nullable bytes: varint -1 for null. */
  void writeNullableBytes(byte[] b) {
    if (b == null) {
      writeVarint(-1);
    } else {
      writeVarint(b.length);
      writeBytes(b, 0, b.length);
    }
  }
}
