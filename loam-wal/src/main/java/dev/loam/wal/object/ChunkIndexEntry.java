package dev.loam.wal.object;

import java.util.Objects;

/**
 * Where one (stream, partition) chunk lies in a WAL object: {@code offset} is the absolute position
 * of its first byte, {@code crc32c} the CRC-32C of its {@code length} bytes.
 */
public record ChunkIndexEntry(
    long streamId, int partition, ChunkEncoding encoding, long offset, int length, int crc32c) {
  /**
   * @throws NullPointerException if {@code encoding} is null
   */
  public ChunkIndexEntry {
    Objects.requireNonNull(encoding, "encoding");
  }

  /** Position just past the chunk's last byte. */
  public long end() {
    return offset + length;
  }
}
