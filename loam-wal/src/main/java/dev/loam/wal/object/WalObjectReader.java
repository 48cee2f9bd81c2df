package dev.loam.wal.object;

import static dev.loam.wal.object.WalFormat.hex;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Decodes and validates WAL objects v1 and v2 (docs/formats/wal-object-v1.md,
 * docs/formats/wal-object-v2.md) from bytes the caller has read: a tail (footer + index) for the
 * segmenter, a single chunk for fetch, or the whole object. Sealed chunks (v2) are opened with
 * {@link #openChunk}. Stateless and thread-safe. Corruption messages name the field and
 * expected/actual values; the caller appends {@code key=<object key>}.
 */
public final class WalObjectReader {
  /** A first tail read of this size covers the footer and index of typical objects. */
  public static final int SUGGESTED_TAIL_READ = 64 * 1024;

  /** Size of the fixed footer at the end of every object. */
  public static final int FOOTER_SIZE = WalFormat.FOOTER_SIZE;

  /** The footer: where the index is and its CRC. */
  public record WalFooter(long indexOffset, int indexLength, int indexCrc32c, int version) {}

  /** The chunk index plus the identity repeated in it: all a tail read yields. */
  public record WalIndex(WalHeader header, List<ChunkIndexEntry> chunks) {
    /**
     * @throws NullPointerException if an argument is null
     */
    public WalIndex {
      Objects.requireNonNull(header, "header");
      chunks = List.copyOf(chunks);
    }

    /** Size of the object's header, derived from the node id length. */
    public int headerSize() {
      return WalFormat.headerSize(header.nodeId().getBytes(StandardCharsets.UTF_8).length);
    }
  }

  private WalObjectReader() {}

  /**
   * Validates the footer found in the last bytes of {@code tail}: magic, footer CRC, version,
   * reserved bits, and that the index range fits the object.
   *
   * @param tail the last {@code tail.length} bytes of the object
   * @param objectSize total object size in bytes
   * @throws CorruptionException if the object is smaller than a footer or the footer is damaged
   * @throws LoamException INVALID if {@code tail} is shorter than the footer or longer than the
   *     object, or the version is newer than this reader supports
   */
  public static WalFooter parseFooter(byte[] tail, long objectSize) {
    if (objectSize < FOOTER_SIZE) {
      throw new CorruptionException(
          "wal object too small size=" + objectSize + " min=" + FOOTER_SIZE);
    }
    if (tail.length < FOOTER_SIZE || tail.length > objectSize) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal tail length out of range tailLength="
              + tail.length
              + " min="
              + FOOTER_SIZE
              + " objectSize="
              + objectSize);
    }
    int f = tail.length - FOOTER_SIZE;
    int magic = BigEndian.getInt(tail, f + WalFormat.F_MAGIC);
    if (magic != WalFormat.FOOTER_MAGIC) {
      throw new CorruptionException(
          "wal footer magic mismatch expected="
              + hex(WalFormat.FOOTER_MAGIC)
              + " actual="
              + hex(magic));
    }
    int storedCrc = BigEndian.getInt(tail, f + WalFormat.F_FOOTER_CRC);
    int actualCrc = WalFormat.crc(tail, f, WalFormat.F_FOOTER_CRC);
    if (storedCrc != actualCrc) {
      throw new CorruptionException(
          "wal footer crc mismatch expected=" + hex(storedCrc) + " actual=" + hex(actualCrc));
    }
    int version = BigEndian.getU16(tail, f + WalFormat.F_VERSION);
    checkVersion(version, "footer");
    int reserved = BigEndian.getU16(tail, f + WalFormat.F_RESERVED);
    if (reserved != 0) {
      throw new CorruptionException("wal footer reserved not zero actual=" + reserved);
    }
    long indexOffset = BigEndian.getLong(tail, f + WalFormat.F_INDEX_OFFSET);
    long indexLength = BigEndian.getInt(tail, f + WalFormat.F_INDEX_LENGTH) & 0xffffffffL;
    long minIndex = WalFormat.indexSize(1, 1);
    if (indexLength < minIndex || indexLength > Integer.MAX_VALUE) {
      throw new CorruptionException(
          "wal footer index_length out of range indexLength=" + indexLength + " min=" + minIndex);
    }
    long minOffset = WalFormat.headerSize(1) + 1L; // smallest header plus one chunk byte
    if (indexOffset < minOffset || indexOffset != objectSize - FOOTER_SIZE - indexLength) {
      throw new CorruptionException(
          "wal footer index_offset inconsistent indexOffset="
              + indexOffset
              + " expected="
              + (objectSize - FOOTER_SIZE - indexLength)
              + " indexLength="
              + indexLength
              + " objectSize="
              + objectSize);
    }
    return new WalFooter(
        indexOffset, (int) indexLength, BigEndian.getInt(tail, f + WalFormat.F_INDEX_CRC), version);
  }

  private static void checkVersion(int version, String where) {
    if (version != WalFormat.VERSION && version != WalFormat.VERSION_SEALED) {
      // CRC-valid but unknown: a newer writer, not damage (read-compatibility matrix).
      throw new LoamException(
          LoamException.Kind.INVALID,
          "unsupported wal object version="
              + version
              + " supported="
              + WalFormat.VERSION
              + ".."
              + WalFormat.VERSION_SEALED
              + " field="
              + where);
    }
  }

  /**
   * How many tail bytes {@link #parseIndex} needs: from the index start to the end.
   *
   * @throws NullPointerException if {@code f} is null
   */
  public static long requiredTailLength(WalFooter f, long objectSize) {
    return objectSize - f.indexOffset();
  }

  /**
   * Validates footer and chunk index from a tail read: index CRC, identity fields, entry count,
   * reserved bits, and that chunks are sorted, non-empty and contiguous from the header's end to
   * the index.
   *
   * @throws CorruptionException if the footer or index is damaged
   * @throws LoamException INVALID if {@code tail} does not reach back to the index start (the
   *     message gives the {@code need} length, see {@link #requiredTailLength}), or as {@link
   *     #parseFooter}
   */
  public static WalIndex parseIndex(byte[] tail, long objectSize) {
    WalFooter footer = parseFooter(tail, objectSize);
    long need = requiredTailLength(footer, objectSize);
    if (tail.length < need) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "wal tail too short for index need=" + need + " tailLength=" + tail.length);
    }
    int base = (int) (tail.length - need); // index start inside tail
    int len = footer.indexLength();
    int actualCrc = WalFormat.crc(tail, base, len);
    if (actualCrc != footer.indexCrc32c()) {
      throw new CorruptionException(
          "wal index crc mismatch expected="
              + hex(footer.indexCrc32c())
              + " actual="
              + hex(actualCrc));
    }
    DurabilityClass cls = durabilityClass(BigEndian.getU8(tail, base + WalFormat.I_CLASS), "index");
    int flags = BigEndian.getU8(tail, base + WalFormat.I_FLAGS);
    if (flags != 0) {
      throw new CorruptionException("wal index flags not zero actual=" + flags);
    }
    int n = BigEndian.getU16(tail, base + WalFormat.I_NODE_ID_LEN);
    if (n < 1 || n > WalFormat.MAX_NODE_ID_BYTES || WalFormat.indexSize(n, 0) > len) {
      throw new CorruptionException(
          "wal index node_id_len out of range nodeIdLen=" + n + " indexLength=" + len);
    }
    Ulid ulid = Ulid.fromBytes(tail, base + WalFormat.I_ULID);
    String nodeId = nodeId(tail, base + WalFormat.I_NODE_ID, n, "index");
    int countAt = base + WalFormat.I_NODE_ID + n;
    long count = BigEndian.getInt(tail, countAt) & 0xffffffffL;
    if (count < 1 || count > WalFormat.MAX_CHUNKS || WalFormat.indexSize(n, count) != len) {
      throw new CorruptionException(
          "wal index count inconsistent count="
              + count
              + " indexLength="
              + len
              + " expectedIndexLength="
              + WalFormat.indexSize(n, count));
    }
    List<ChunkIndexEntry> chunks = new ArrayList<>((int) count);
    long expectedOffset = WalFormat.headerSize(n);
    int p = countAt + 4;
    for (int i = 0; i < count; i++, p += WalFormat.ENTRY_SIZE) {
      long streamId = BigEndian.getLong(tail, p + WalFormat.E_STREAM_ID);
      int partition = BigEndian.getInt(tail, p + WalFormat.E_PARTITION);
      int encCode = BigEndian.getU8(tail, p + WalFormat.E_ENCODING);
      ChunkEncoding enc = ChunkEncoding.fromCodeOrNull(encCode);
      String who = " index=" + i + " streamId=" + streamId + " partition=" + partition;
      if (enc == null) {
        throw new CorruptionException("wal index entry encoding unknown code=" + encCode + who);
      }
      int eflags = BigEndian.getU8(tail, p + WalFormat.E_FLAGS);
      int reserved = BigEndian.getU16(tail, p + WalFormat.E_RESERVED);
      int allowedFlags =
          footer.version() == WalFormat.VERSION_SEALED ? WalFormat.ENTRY_FLAG_SEALED : 0;
      if ((eflags & ~allowedFlags) != 0 || reserved != 0) {
        throw new CorruptionException(
            "wal index entry flags/reserved not zero flags="
                + eflags
                + " reserved="
                + reserved
                + who);
      }
      if (partition < 0) {
        throw new CorruptionException("wal index entry partition negative" + who);
      }
      if (i > 0) {
        ChunkIndexEntry prev = chunks.get(i - 1);
        int c = Long.compare(prev.streamId(), streamId);
        if (c > 0 || (c == 0 && prev.partition() >= partition)) {
          throw new CorruptionException(
              "wal index entries not sorted previousStreamId="
                  + prev.streamId()
                  + " previousPartition="
                  + prev.partition()
                  + who);
        }
      }
      long offset = BigEndian.getLong(tail, p + WalFormat.E_OFFSET);
      long length = BigEndian.getInt(tail, p + WalFormat.E_LENGTH) & 0xffffffffL;
      if (offset != expectedOffset) {
        throw new CorruptionException(
            "wal index entry offset not contiguous expected="
                + expectedOffset
                + " actual="
                + offset
                + who);
      }
      if (length < 1 || length > footer.indexOffset() - offset) {
        throw new CorruptionException(
            "wal index entry length out of range length="
                + length
                + " max="
                + (footer.indexOffset() - offset)
                + who);
      }
      chunks.add(
          new ChunkIndexEntry(
              streamId,
              partition,
              enc,
              offset,
              (int) length,
              BigEndian.getInt(tail, p + WalFormat.E_CRC),
              (eflags & WalFormat.ENTRY_FLAG_SEALED) != 0));
      expectedOffset = offset + length;
    }
    if (expectedOffset != footer.indexOffset()) {
      throw new CorruptionException(
          "wal index chunks do not end at index_offset chunksEnd="
              + expectedOffset
              + " indexOffset="
              + footer.indexOffset());
    }
    return new WalIndex(
        new WalHeader(footer.version(), cls, ulid, nodeId), Collections.unmodifiableList(chunks));
  }

  private static DurabilityClass durabilityClass(int code, String where) {
    for (DurabilityClass c : DurabilityClass.values()) {
      if (c.code() == code) {
        return c;
      }
    }
    throw new CorruptionException("wal " + where + " class unknown code=" + code);
  }

  private static String nodeId(byte[] b, int off, int len, String where) {
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b, off, len)).toString();
    } catch (CharacterCodingException e) {
      throw new CorruptionException("wal " + where + " node_id not valid UTF-8 length=" + len, e);
    }
  }

  /**
   * Fully validates a whole object: footer, index, header (magic, CRC, version, flags), that the
   * header's identity equals the index copy, and every chunk's CRC.
   *
   * @return the object; it has no tickets ({@link WalObject#ticketCount()} is 0)
   * @throws CorruptionException naming the first failed check
   * @throws LoamException INVALID if the version is newer than this reader supports
   */
  public static WalObject parse(byte[] whole) {
    WalIndex index = parseIndex(whole, whole.length);
    WalHeader header = parseHeader(whole);
    if (!header.equals(index.header())) {
      throw new CorruptionException(
          "wal header and index identity differ header=" + header + " index=" + index.header());
    }
    for (ChunkIndexEntry e : index.chunks()) {
      verifyChunk(ByteBuffer.wrap(whole, (int) e.offset(), e.length()), e);
    }
    return new WalObject(whole, header, index.chunks(), new long[0], new boolean[0]);
  }

  /**
   * Validates and decodes the header at the start of {@code head} (at least the header's bytes).
   *
   * @throws CorruptionException if magic, length, CRC, class or flags are wrong
   * @throws LoamException INVALID if the version is newer than this reader supports
   */
  public static WalHeader parseHeader(byte[] head) {
    if (head.length < WalFormat.H_NODE_ID) {
      throw new CorruptionException(
          "wal header truncated length=" + head.length + " min=" + WalFormat.H_NODE_ID);
    }
    int magic = BigEndian.getInt(head, WalFormat.H_MAGIC);
    if (magic != WalFormat.HEADER_MAGIC) {
      throw new CorruptionException(
          "wal header magic mismatch expected="
              + hex(WalFormat.HEADER_MAGIC)
              + " actual="
              + hex(magic));
    }
    int n = BigEndian.getU16(head, WalFormat.H_NODE_ID_LEN);
    if (n < 1 || n > WalFormat.MAX_NODE_ID_BYTES || WalFormat.headerSize(n) > head.length) {
      throw new CorruptionException(
          "wal header node_id_len out of range nodeIdLen=" + n + " available=" + head.length);
    }
    int crcAt = WalFormat.H_NODE_ID + n;
    int stored = BigEndian.getInt(head, crcAt);
    int actual = WalFormat.crc(head, 0, crcAt);
    if (stored != actual) {
      throw new CorruptionException(
          "wal header crc mismatch expected=" + hex(stored) + " actual=" + hex(actual));
    }
    int version = BigEndian.getU16(head, WalFormat.H_VERSION);
    checkVersion(version, "header");
    DurabilityClass cls = durabilityClass(BigEndian.getU8(head, WalFormat.H_CLASS), "header");
    int flags = BigEndian.getU8(head, WalFormat.H_FLAGS);
    if (flags != 0) {
      throw new CorruptionException("wal header flags not zero actual=" + flags);
    }
    return new WalHeader(
        version,
        cls,
        Ulid.fromBytes(head, WalFormat.H_ULID),
        nodeId(head, WalFormat.H_NODE_ID, n, "header"));
  }

  /**
   * Checks a chunk read on its own against its index entry.
   *
   * @param chunkBytes exactly the chunk's bytes
   * @throws CorruptionException on a length or CRC mismatch
   */
  public static void verifyChunk(byte[] chunkBytes, ChunkIndexEntry e) {
    verifyChunk(ByteBuffer.wrap(chunkBytes), e);
  }

  /**
   * Checks a chunk (position to limit of {@code chunk}; the position is not moved) against its
   * index entry.
   *
   * @throws CorruptionException on a length or CRC mismatch
   */
  public static void verifyChunk(ByteBuffer chunk, ChunkIndexEntry e) {
    String who =
        " streamId=" + e.streamId() + " partition=" + e.partition() + " offset=" + e.offset();
    if (chunk.remaining() != e.length()) {
      throw new CorruptionException(
          "wal chunk length mismatch expected="
              + e.length()
              + " actual="
              + chunk.remaining()
              + who);
    }
    int actual = WalFormat.crc(chunk);
    if (actual != e.crc32c()) {
      throw new CorruptionException(
          "wal chunk crc mismatch expected=" + hex(e.crc32c()) + " actual=" + hex(actual) + who);
    }
  }

  /**
   * Verifies chunk {@code chunkIndex} of an object (position to limit of {@code chunk}; not moved)
   * and returns its payloads: the bytes themselves for a plain chunk, the verified plaintext for a
   * sealed chunk.
   *
   * @param objectKey the key the object was read from (bound into sealed chunks)
   * @param keys resolves the key-encryption key a sealed chunk names; not called for plain chunks
   * @throws CorruptionException on a length or CRC mismatch, or a sealed chunk that fails to unwrap
   *     or authenticate
   * @throws LoamException as {@link KeyResolver#resolve}; a destroyed key is {@link
   *     dev.loam.error.KeyDestroyedException}
   */
  public static ByteBuffer openChunk(
      ByteBuffer chunk, ChunkIndexEntry e, int chunkIndex, String objectKey, KeyResolver keys) {
    verifyChunk(chunk, e);
    if (!e.sealed()) {
      return chunk.slice();
    }
    SealedChunk.Binding binding =
        new SealedChunk.Binding(objectKey, e.streamId(), e.partition(), chunkIndex);
    return ByteBuffer.wrap(SealedChunk.open(chunk, binding, e.encoding(), keys));
  }
}
