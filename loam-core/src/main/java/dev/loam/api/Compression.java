package dev.loam.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;

/**
 * The codec a stream's batches are compressed with: Kafka's five, in the stream formats Kafka
 * writes, so a Kafka consumer reads them unchanged (docs/formats/compression.md). A stream has a
 * default ({@link StreamSpec#withCompression}); an append may name its own ({@link
 * Log#append(String, String, java.util.List, ProducerIdentity, Compression)}). Every reader decodes
 * all five.
 */
public enum Compression {
  NONE("none"),
  GZIP("gzip"),
  SNAPPY("snappy"),
  LZ4("lz4"),
  ZSTD("zstd");

  private final String wireName;

  Compression(String wireName) {
    this.wireName = wireName;
  }

  /** Kafka's lower-case name ({@code compression.type}), also the HTTP API's. */
  public String wireName() {
    return wireName;
  }

  /**
   * The codec named {@code name} (Kafka's lower-case names).
   *
   * @throws LoamException INVALID naming the value and the accepted ones
   */
  public static Compression fromWireName(String name) {
    for (Compression c : values()) {
      if (c.wireName.equals(name)) {
        return c;
      }
    }
    throw new LoamException(
        Kind.INVALID,
        "unknown compression compression="
            + name
            + " expected one of none, gzip, snappy, lz4, zstd");
  }
}
