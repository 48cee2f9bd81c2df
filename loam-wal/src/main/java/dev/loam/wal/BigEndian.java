package dev.loam.wal;

/**
 * Big-endian reads and writes of fixed-width integers in byte arrays: the byte order of every Loam
 * format (as Kafka's). One copy for all formats, so a fix lands everywhere.
 */
public final class BigEndian {
  private BigEndian() {}

  public static void putLong(byte[] a, int off, long v) {
    for (int i = 7; i >= 0; i--) {
      a[off + i] = (byte) v;
      v >>>= 8;
    }
  }

  public static void putInt(byte[] a, int off, int v) {
    a[off] = (byte) (v >>> 24);
    a[off + 1] = (byte) (v >>> 16);
    a[off + 2] = (byte) (v >>> 8);
    a[off + 3] = (byte) v;
  }

  public static void putShort(byte[] a, int off, int v) {
    a[off] = (byte) (v >>> 8);
    a[off + 1] = (byte) v;
  }

  public static long getLong(byte[] a, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (a[off + i] & 0xff);
    }
    return v;
  }

  public static int getInt(byte[] a, int off) {
    return ((a[off] & 0xff) << 24)
        | ((a[off + 1] & 0xff) << 16)
        | ((a[off + 2] & 0xff) << 8)
        | (a[off + 3] & 0xff);
  }

  /** An unsigned 16-bit value. */
  public static int getU16(byte[] a, int off) {
    return ((a[off] & 0xff) << 8) | (a[off + 1] & 0xff);
  }

  /** An unsigned 8-bit value. */
  public static int getU8(byte[] a, int off) {
    return a[off] & 0xff;
  }
}
