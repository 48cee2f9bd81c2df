package dev.loam.meta.codec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte buffer for the metastore's binary formats (commands, outcomes,
 * snapshots). Not thread-safe.
 */
public final class BinaryWriter {
  private byte[] buf;
  private int size;

  public BinaryWriter() {
    this(256);
  }

  public BinaryWriter(int initialCapacity) {
    buf = new byte[Math.max(16, initialCapacity)];
  }

  private void ensure(int extra) {
    int need = size + extra;
    if (need < 0) {
      throw new IllegalStateException("metastore encoding exceeds 2 GiB");
    }
    if (need > buf.length) {
      int cap = buf.length;
      while (cap < need) {
        cap = cap > (Integer.MAX_VALUE >> 1) ? Integer.MAX_VALUE : cap << 1;
      }
      buf = Arrays.copyOf(buf, cap);
    }
  }

  public BinaryWriter u8(int v) {
    ensure(1);
    buf[size++] = (byte) v;
    return this;
  }

  public BinaryWriter bool(boolean v) {
    return u8(v ? 1 : 0);
  }

  public BinaryWriter i16(int v) {
    ensure(2);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
    return this;
  }

  public BinaryWriter i32(int v) {
    ensure(4);
    buf[size++] = (byte) (v >>> 24);
    buf[size++] = (byte) (v >>> 16);
    buf[size++] = (byte) (v >>> 8);
    buf[size++] = (byte) v;
    return this;
  }

  public BinaryWriter i64(long v) {
    i32((int) (v >>> 32));
    return i32((int) v);
  }

  /** Raw bytes, no length prefix. */
  public BinaryWriter raw(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, size, b.length);
    size += b.length;
    return this;
  }

  /** An i32 length, then the bytes. */
  public BinaryWriter bytes(byte[] b) {
    i32(b.length);
    return raw(b);
  }

  /** A non-null string: i32 UTF-8 byte length, then the bytes. */
  public BinaryWriter string(String s) {
    if (s == null) {
      throw new IllegalArgumentException("null string where one is required");
    }
    return nullableString(s);
  }

  /** A string or null: i32 UTF-8 byte length (-1 for null), then the bytes. */
  public BinaryWriter nullableString(String s) {
    if (s == null) {
      return i32(-1);
    }
    return bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  public int size() {
    return size;
  }

  /** A copy of the bytes written so far. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}
