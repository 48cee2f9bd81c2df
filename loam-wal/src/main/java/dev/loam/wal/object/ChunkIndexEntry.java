package dev.loam.wal.object;

import java.util.Objects;

/**
 * Where one (stream, partition) chunk lies in a WAL object: {@code offset} is the absolute position
 * of its first byte, {@code crc32c} the CRC-32C of its {@code length} stored bytes. {@code sealed}
 * (format v2) says the stored bytes are a sealed chunk (docs/formats/wal-object-v2.md).
 */
public record ChunkIndexEntry(
    long streamId,
    int partition,
    ChunkEncoding encoding,
    long offset,
    int length,
    int crc32c,
    boolean sealed) {
  /**
   * @throws NullPointerException if {@code encoding} is null
   */
  public ChunkIndexEntry {
    Objects.requireNonNull(encoding, "encoding");
  }

  /** An entry of a plain (not sealed) chunk. */
  public ChunkIndexEntry(
      long streamId, int partition, ChunkEncoding encoding, long offset, int length, int crc32c) {
    this(streamId, partition, encoding, offset, length, crc32c, false);
  }

  /** Position just past the chunk's last byte. */
  public long end() {
    return offset + length;
  }
}
