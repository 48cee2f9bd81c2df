package dev.loam.wal.object;

import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Accumulates payloads per (stream, partition) and lays them out as one WAL object: v1
 * (docs/formats/wal-object-v1.md) when every chunk is plain, v2 (docs/formats/wal-object-v2.md)
 * when at least one chunk is sealed under a namespace's key-encryption key. Not thread-safe: one
 * flush owns one builder. Payload arrays are not copied until {@link #build()}; callers must not
 * modify them before that.
 */
public final class WalObjectBuilder {
  private record Key(long streamId, int partition) {}

  private static final Comparator<Key> ORDER =
      Comparator.comparingLong(Key::streamId).thenComparingInt(Key::partition);

  private static final class Chunk {
    final ChunkEncoding encoding;
    final KeyEncryptionKey kek; // null: plain
    final List<byte[]> payloads = new ArrayList<>();
    final List<Integer> tickets = new ArrayList<>();
    long length;

    Chunk(ChunkEncoding encoding, KeyEncryptionKey kek) {
      this.encoding = encoding;
      this.kek = kek;
    }

    long sealOverhead() {
      return kek == null
          ? 0
          : SealedChunk.sealedSize(kek.id().getBytes(StandardCharsets.UTF_8).length, 0);
    }
  }

  private final byte[] nodeIdBytes;
  private final WalHeader header;
  private final String objectKey; // null: sealed chunks refused
  private final RandomGenerator random;
  private final TreeMap<Key, Chunk> chunks = new TreeMap<>(ORDER);
  private int tickets;
  private long payloadBytes;
  private long sealOverhead;

  /**
   * @throws LoamException INVALID if {@code nodeId} is not 1..255 bytes of valid UTF-8
   * @throws NullPointerException if an argument is null
   */
  public WalObjectBuilder(String nodeId, Ulid ulid, DurabilityClass cls) {
    Objects.requireNonNull(nodeId, "nodeId");
    this.nodeIdBytes = encodeNodeId(nodeId);
    this.header = new WalHeader(WalFormat.VERSION, cls, ulid, nodeId);
    this.objectKey = null;
    this.random = null;
  }

  /**
   * A builder that can also seal chunks ({@link #add(long, int, ChunkEncoding, byte[],
   * KeyEncryptionKey)}).
   *
   * @param objectKey the store key the object will be written under, bound into every sealed chunk
   * @param random the source of data keys and nonces; a {@link java.security.SecureRandom} outside
   *     tests
   * @throws LoamException INVALID if {@code nodeId} is not 1..255 bytes of valid UTF-8 or {@code
   *     objectKey} not 1..1024 bytes
   * @throws NullPointerException if an argument is null
   */
  public WalObjectBuilder(
      String nodeId, Ulid ulid, DurabilityClass cls, String objectKey, RandomGenerator random) {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(objectKey, "objectKey");
    this.nodeIdBytes = encodeNodeId(nodeId);
    this.header = new WalHeader(WalFormat.VERSION, cls, ulid, nodeId);
    new SealedChunk.Binding(objectKey, 0, 0, 0); // validates the key length
    this.objectKey = objectKey;
    this.random = Objects.requireNonNull(random, "random");
  }

  private static byte[] encodeNodeId(String nodeId) {
    ByteBuffer b;
    try {
      // Strict: an unpaired surrogate must not silently become '?' in an object key.
      b = StandardCharsets.UTF_8.newEncoder().encode(CharBuffer.wrap(nodeId));
    } catch (CharacterCodingException e) {
      throw new LoamException(
          LoamException.Kind.INVALID, "wal node id is not valid unicode nodeId=" + nodeId, e);
    }
    byte[] out = new byte[b.remaining()];
    b.get(out);
    if (out.length < 1 || out.length > WalFormat.MAX_NODE_ID_BYTES) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal node id length out of range bytes=" + out.length + " min=1 max=255");
    }
    return out;
  }

  /**
   * Appends {@code payload} (normally one encoded RecordBatch) to the chunk of (streamId,
   * partition), after earlier payloads of that chunk.
   *
   * @return a ticket, 0, 1, 2... in call order, for {@link WalObject#payloadOffset(int)}
   * @throws LoamException INVALID if the partition is negative, the payload empty, the chunk
   *     already has another encoding, or the object would exceed its chunk or size limit
   * @throws NullPointerException if {@code encoding} or {@code payload} is null
   */
  public int add(long streamId, int partition, ChunkEncoding encoding, byte[] payload) {
    return add(streamId, partition, encoding, payload, null);
  }

  /**
   * As {@link #add(long, int, ChunkEncoding, byte[])}, for a chunk sealed under {@code kek} (or
   * plain when {@code kek} is null). Every payload of one chunk must name the same key.
   *
   * @throws LoamException INVALID as the plain {@code add}, if the chunk already has another key or
   *     is plain, or if this builder was made without an object key
   */
  public int add(
      long streamId, int partition, ChunkEncoding encoding, byte[] payload, KeyEncryptionKey kek) {
    Objects.requireNonNull(encoding, "encoding");
    if (kek != null && objectKey == null) {
      throw invalid("wal builder has no object key, cannot seal", streamId, partition);
    }
    Objects.requireNonNull(payload, "payload");
    if (partition < 0) {
      throw invalid("wal chunk partition negative", streamId, partition);
    }
    if (payload.length == 0) {
      throw invalid("wal chunk payload empty", streamId, partition);
    }
    Key key = new Key(streamId, partition);
    Chunk c = chunks.get(key);
    if (c == null) {
      if (chunks.size() >= WalFormat.MAX_CHUNKS) {
        throw invalid(
            "wal object too many chunks max=" + WalFormat.MAX_CHUNKS, streamId, partition);
      }
    } else if (c.encoding != encoding) {
      throw invalid(
          "wal chunk encoding conflict existing=" + c.encoding + " added=" + encoding,
          streamId,
          partition);
    } else if (!sameKey(c.kek, kek)) {
      throw invalid(
          "wal chunk key conflict existing="
              + (c.kek == null ? "plain" : c.kek.id())
              + " added="
              + (kek == null ? "plain" : kek.id()),
          streamId,
          partition);
    }
    Chunk fresh = c == null ? new Chunk(encoding, kek) : null;
    int newChunks = c == null ? chunks.size() + 1 : chunks.size();
    long overhead = sealOverhead + (fresh == null ? 0 : fresh.sealOverhead());
    long chunkStored =
        (c == null ? fresh.sealOverhead() : c.length + c.sealOverhead()) + payload.length;
    if (chunkStored > Integer.MAX_VALUE) {
      throw invalid("wal chunk too large", streamId, partition);
    }
    if (sizeFor(payloadBytes + payload.length + overhead, newChunks) > WalFormat.MAX_OBJECT_SIZE) {
      throw invalid("wal object too large max=" + WalFormat.MAX_OBJECT_SIZE, streamId, partition);
    }
    if (c == null) {
      c = fresh;
      chunks.put(key, c);
      sealOverhead = overhead;
    }
    c.payloads.add(payload);
    c.tickets.add(tickets);
    c.length += payload.length;
    payloadBytes += payload.length;
    return tickets++;
  }

  private static boolean sameKey(KeyEncryptionKey a, KeyEncryptionKey b) {
    return a == null ? b == null : b != null && a.id().equals(b.id());
  }

  private static LoamException invalid(String msg, long streamId, int partition) {
    return new LoamException(
        LoamException.Kind.INVALID, msg + " streamId=" + streamId + " partition=" + partition);
  }

  private long sizeFor(long payloads, int chunkCount) {
    return WalFormat.headerSize(nodeIdBytes.length)
        + payloads
        + WalFormat.indexSize(nodeIdBytes.length, chunkCount)
        + WalFormat.FOOTER_SIZE;
  }

  /** The exact size {@link #build()} would produce now. */
  public int estimatedSize() {
    return (int) sizeFor(payloadBytes + sealOverhead, chunks.size());
  }

  /** Number of payloads added so far. */
  public int payloadCount() {
    return tickets;
  }

  /**
   * Lays out header, chunks sorted by (streamId, partition), index and footer.
   *
   * @throws LoamException INVALID if nothing was added (an empty object is not valid)
   */
  public WalObject build() {
    if (chunks.isEmpty()) {
      throw new LoamException(
          LoamException.Kind.INVALID, "wal object has no chunks nodeId=" + header.nodeId());
    }
    int n = nodeIdBytes.length;
    int version = sealOverhead > 0 ? WalFormat.VERSION_SEALED : WalFormat.VERSION;
    WalHeader header =
        new WalHeader(
            version, this.header.durabilityClass(), this.header.ulid(), this.header.nodeId());
    byte[] out = new byte[estimatedSize()];
    // Header.
    BigEndian.putInt(out, WalFormat.H_MAGIC, WalFormat.HEADER_MAGIC);
    BigEndian.putShort(out, WalFormat.H_VERSION, version);
    out[WalFormat.H_CLASS] = (byte) header.durabilityClass().code();
    out[WalFormat.H_FLAGS] = 0;
    header.ulid().writeTo(out, WalFormat.H_ULID);
    BigEndian.putShort(out, WalFormat.H_NODE_ID_LEN, n);
    System.arraycopy(nodeIdBytes, 0, out, WalFormat.H_NODE_ID, n);
    int headerCrcAt = WalFormat.H_NODE_ID + n;
    BigEndian.putInt(out, headerCrcAt, WalFormat.crc(out, 0, headerCrcAt));

    // Chunks.
    long[] offsets = new long[tickets];
    boolean[] sealedTickets = new boolean[tickets];
    List<ChunkIndexEntry> entries = new ArrayList<>(chunks.size());
    int pos = WalFormat.headerSize(n);
    for (var e : chunks.entrySet()) {
      Chunk c = e.getValue();
      int start = pos;
      if (c.kek == null) {
        for (int i = 0; i < c.payloads.size(); i++) {
          byte[] p = c.payloads.get(i);
          offsets[c.tickets.get(i)] = pos;
          System.arraycopy(p, 0, out, pos, p.length);
          pos += p.length;
        }
      } else {
        byte[] plain = new byte[(int) c.length];
        int at = 0;
        for (int i = 0; i < c.payloads.size(); i++) {
          byte[] p = c.payloads.get(i);
          offsets[c.tickets.get(i)] = at;
          sealedTickets[c.tickets.get(i)] = true;
          System.arraycopy(p, 0, plain, at, p.length);
          at += p.length;
        }
        SealedChunk.Binding binding =
            new SealedChunk.Binding(
                objectKey, e.getKey().streamId(), e.getKey().partition(), entries.size());
        SealedChunk.seal(plain, c.kek, binding, c.encoding, random, out, pos);
        pos += (int) (c.length + c.sealOverhead());
      }
      entries.add(
          new ChunkIndexEntry(
              e.getKey().streamId(),
              e.getKey().partition(),
              c.encoding,
              start,
              pos - start,
              WalFormat.crc(out, start, pos - start),
              c.kek != null));
    }

    // Index: identity copy, count, entries.
    int indexOffset = pos;
    out[pos + WalFormat.I_CLASS] = (byte) header.durabilityClass().code();
    out[pos + WalFormat.I_FLAGS] = 0;
    BigEndian.putShort(out, pos + WalFormat.I_NODE_ID_LEN, n);
    header.ulid().writeTo(out, pos + WalFormat.I_ULID);
    System.arraycopy(nodeIdBytes, 0, out, pos + WalFormat.I_NODE_ID, n);
    pos += WalFormat.I_NODE_ID + n;
    BigEndian.putInt(out, pos, entries.size());
    pos += 4;
    for (ChunkIndexEntry e : entries) {
      BigEndian.putLong(out, pos + WalFormat.E_STREAM_ID, e.streamId());
      BigEndian.putInt(out, pos + WalFormat.E_PARTITION, e.partition());
      out[pos + WalFormat.E_ENCODING] = (byte) e.encoding().code();
      out[pos + WalFormat.E_FLAGS] = (byte) (e.sealed() ? WalFormat.ENTRY_FLAG_SEALED : 0);
      BigEndian.putShort(out, pos + WalFormat.E_RESERVED, 0);
      BigEndian.putLong(out, pos + WalFormat.E_OFFSET, e.offset());
      BigEndian.putInt(out, pos + WalFormat.E_LENGTH, e.length());
      BigEndian.putInt(out, pos + WalFormat.E_CRC, e.crc32c());
      pos += WalFormat.ENTRY_SIZE;
    }
    int indexLength = pos - indexOffset;

    // Footer.
    int f = pos;
    BigEndian.putLong(out, f + WalFormat.F_INDEX_OFFSET, indexOffset);
    BigEndian.putInt(out, f + WalFormat.F_INDEX_LENGTH, indexLength);
    BigEndian.putInt(out, f + WalFormat.F_INDEX_CRC, WalFormat.crc(out, indexOffset, indexLength));
    BigEndian.putShort(out, f + WalFormat.F_VERSION, version);
    BigEndian.putShort(out, f + WalFormat.F_RESERVED, 0);
    BigEndian.putInt(
        out, f + WalFormat.F_FOOTER_CRC, WalFormat.crc(out, f, WalFormat.F_FOOTER_CRC));
    BigEndian.putInt(out, f + WalFormat.F_MAGIC, WalFormat.FOOTER_MAGIC);
    if (f + WalFormat.FOOTER_SIZE != out.length) {
      throw new LoamException(
          LoamException.Kind.INTERNAL,
          "wal object layout size mismatch expected="
              + out.length
              + " actual="
              + (f + WalFormat.FOOTER_SIZE));
    }
    return new WalObject(out, header, entries, offsets, sealedTickets);
  }
}
