package dev.loam.wal.object;

import dev.loam.error.LoamException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * An encoded WAL object (docs/formats/wal-object-v1.md) with its decoded header and chunk index.
 * Built by {@link WalObjectBuilder} or validated by {@link WalObjectReader#parse}. Immutable as
 * long as nobody writes {@link #bytes()}.
 */
public final class WalObject {
  private final byte[] bytes;
  private final WalHeader header;
  private final List<ChunkIndexEntry> chunks;
  private final long[] payloadOffsets; // by ticket; empty for parsed objects

  WalObject(byte[] bytes, WalHeader header, List<ChunkIndexEntry> chunks, long[] payloadOffsets) {
    this.bytes = bytes;
    this.header = header;
    this.chunks = List.copyOf(chunks);
    this.payloadOffsets = payloadOffsets;
  }

  /**
   * The object's bytes. Not copied (objects are megabytes): the caller must not modify the array.
   */
  public byte[] bytes() {
    return bytes;
  }

  /** Format version, durability class, ULID and node id. */
  public WalHeader header() {
    return header;
  }

  /** The chunk index, sorted by (streamId, partition). */
  public List<ChunkIndexEntry> chunks() {
    return chunks;
  }

  /** Size of the object in bytes. */
  public int size() {
    return bytes.length;
  }

  /** Number of tickets issued by the builder; 0 for a parsed object. */
  public int ticketCount() {
    return payloadOffsets.length;
  }

  /**
   * Absolute position in {@link #bytes()} of the payload added with this ticket; its length is the
   * added payload's length.
   *
   * @throws LoamException INVALID if the ticket was not issued for this object (parsed objects have
   *     no tickets)
   */
  public long payloadOffset(int ticket) {
    if (ticket < 0 || ticket >= payloadOffsets.length) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal object unknown ticket=" + ticket + " tickets=" + payloadOffsets.length);
    }
    return payloadOffsets[ticket];
  }

  /**
   * A read-only view of chunk {@code i}'s bytes.
   *
   * @throws LoamException INVALID if {@code i} is out of range
   */
  public ByteBuffer chunk(int i) {
    if (i < 0 || i >= chunks.size()) {
      throw new LoamException(
          LoamException.Kind.INVALID, "wal object chunk out of range index=" + i);
    }
    ChunkIndexEntry e = chunks.get(i);
    return ByteBuffer.wrap(bytes, (int) e.offset(), e.length()).slice().asReadOnlyBuffer();
  }
}
