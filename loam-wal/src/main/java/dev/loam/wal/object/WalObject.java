package dev.loam.wal.object;

import dev.loam.error.LoamException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * An encoded WAL object (docs/formats/wal-object-v1.md, v2 with sealed chunks:
 * docs/formats/wal-object-v2.md) with its decoded header and chunk index. Built by {@link
 * WalObjectBuilder} or validated by {@link WalObjectReader#parse}. Immutable as long as nobody
 * writes {@link #bytes()}.
 */
public final class WalObject {
  private final byte[] bytes;
  private final WalHeader header;
  private final List<ChunkIndexEntry> chunks;
  private final long[] payloadOffsets; // by ticket; empty for parsed objects
  private final boolean[] sealedTickets; // by ticket: offset is within the chunk's plaintext

  WalObject(
      byte[] bytes,
      WalHeader header,
      List<ChunkIndexEntry> chunks,
      long[] payloadOffsets,
      boolean[] sealedTickets) {
    this.bytes = bytes;
    this.header = header;
    this.chunks = List.copyOf(chunks);
    this.payloadOffsets = payloadOffsets;
    this.sealedTickets = sealedTickets;
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
   *     no tickets), or its chunk is sealed (its payloads have no position in the object's bytes:
   *     see {@link #plaintextOffset})
   */
  public long payloadOffset(int ticket) {
    checkTicket(ticket);
    if (sealedTickets[ticket]) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal object ticket is in a sealed chunk, use plaintextOffset ticket=" + ticket);
    }
    return payloadOffsets[ticket];
  }

  /** Whether the payload added with this ticket went into a sealed chunk. */
  public boolean isSealed(int ticket) {
    checkTicket(ticket);
    return sealedTickets[ticket];
  }

  /**
   * Position of a sealed chunk's payload in that chunk's plaintext ({@link
   * WalObjectReader#openChunk}); its length is the added payload's length.
   *
   * @throws LoamException INVALID if the ticket was not issued or its chunk is plain
   */
  public long plaintextOffset(int ticket) {
    checkTicket(ticket);
    if (!sealedTickets[ticket]) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal object ticket is in a plain chunk, use payloadOffset ticket=" + ticket);
    }
    return payloadOffsets[ticket];
  }

  private void checkTicket(int ticket) {
    if (ticket < 0 || ticket >= payloadOffsets.length) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal object unknown ticket=" + ticket + " tickets=" + payloadOffsets.length);
    }
  }

  /**
   * A read-only view of chunk {@code i}'s stored bytes (for a sealed chunk: header, ciphertext and
   * tag).
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
