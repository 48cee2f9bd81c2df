package dev.loam.wal.batch;

import dev.loam.error.CorruptionException;

/**
 * Compression codec of a Kafka RecordBatch v2, stored in attribute bits 0-2. Loam encodes and
 * decodes all five, in the stream formats Kafka uses (docs/formats/compression.md): gzip members,
 * the xerial snappy stream (or a raw snappy block), one LZ4 frame of independent blocks, and zstd
 * frames. Decoding is bounded by {@link RecordBatch#MAX_UNCOMPRESSED_RECORDS_BYTES}.
 */
public enum Compression {
  NONE(0, "none"),
  GZIP(1, "gzip"),
  SNAPPY(2, "snappy"),
  LZ4(3, "lz4"),
  ZSTD(4, "zstd");

  private final int code;
  private final String wireName;

  Compression(int code, String wireName) {
    this.code = code;
    this.wireName = wireName;
  }

  /** Kafka's codec id, the value of attribute bits 0-2. */
  public int code() {
    return code;
  }

  /** Kafka's lower-case codec name ({@code compression.type}). */
  public String wireName() {
    return wireName;
  }

  /**
   * The codec with this Kafka id.
   *
   * @throws CorruptionException if {@code code} is not 0..4 (the value comes from stored bytes)
   */
  public static Compression fromCode(int code) {
    if (code < 0 || code >= VALUES.length) {
      throw new CorruptionException(
          "record batch attributes has unknown compression code=" + code + " expected=0..4");
    }
    return VALUES[code];
  }

  private static final Compression[] VALUES = values();
}
