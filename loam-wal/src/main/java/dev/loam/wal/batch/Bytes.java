package dev.loam.wal.batch;

/** Small helpers for toString of byte arrays in value records. */
final class Bytes {
  private Bytes() {}

  static String describe(byte[] b) {
    return b == null ? "null" : "byte[" + b.length + "]";
  }
}
