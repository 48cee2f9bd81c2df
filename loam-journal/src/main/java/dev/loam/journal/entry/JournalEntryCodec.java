package dev.loam.journal.entry;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes {@link JournalEntry} (docs/formats/journal-entry-v1.md). Pure and
 * thread-safe.
 */
public final class JournalEntryCodec {
  /** ASCII {@code LJNE}. */
  public static final int MAGIC = 0x4C4A4E45;

  /** The only version this codec writes and reads. */
  public static final int VERSION = 1;

  // Field offsets, chained so each follows from the previous.
  static final int MAGIC_OFFSET = 0;
  static final int VERSION_OFFSET = MAGIC_OFFSET + 4;
  static final int TYPE_OFFSET = VERSION_OFFSET + 2;
  static final int RESERVED_OFFSET = TYPE_OFFSET + 1;
  static final int STREAM_OFFSET = RESERVED_OFFSET + 1;
  static final int PARTITION_OFFSET = STREAM_OFFSET + 8;
  static final int BODY_LENGTH_OFFSET = PARTITION_OFFSET + 4;
  static final int BODY_OFFSET = BODY_LENGTH_OFFSET + 4;

  /** Header and CRC: the bytes of an entry besides its body. */
  public static final int OVERHEAD = BODY_OFFSET + 4;

  /**
   * The largest body: 8 MiB, the WAL object size bound, so a batch that fits a journal also fits a
   * leaderless WAL object and every Ratis buffer is sized by it.
   */
  public static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

  static final int TYPE_HOST = 1;
  static final int TYPE_APPEND = 2;
  static final int TYPE_SEAL = 3;
  static final int TYPE_RELEASE = 4;

  private JournalEntryCodec() {}

  /**
   * The entry's bytes.
   *
   * @throws LoamException INVALID if the body is longer than {@link #MAX_BODY_BYTES}
   */
  public static byte[] encode(JournalEntry entry) {
    byte[] body;
    int type;
    if (entry instanceof JournalEntry.Host h) {
      type = TYPE_HOST;
      body = ByteBuffer.allocate(8).putLong(h.startOffset()).array();
    } else if (entry instanceof JournalEntry.Append a) {
      type = TYPE_APPEND;
      body = a.batch();
    } else if (entry instanceof JournalEntry.Release r) {
      type = TYPE_RELEASE;
      body = ByteBuffer.allocate(8).putLong(r.endOffset()).array();
    } else {
      JournalEntry.Seal s = (JournalEntry.Seal) entry;
      type = TYPE_SEAL;
      byte[] key = s.segment().key().getBytes(StandardCharsets.UTF_8);
      body =
          ByteBuffer.allocate(18 + key.length)
              .putLong(s.segment().baseOffset())
              .putLong(s.segment().endOffset())
              .putShort((short) key.length)
              .put(key)
              .array();
    }
    if (body.length > MAX_BODY_BYTES) {
      throw new LoamException(
          Kind.INVALID,
          "journal entry body too large bytes=" + body.length + " max=" + MAX_BODY_BYTES);
    }
    ByteBuffer b = ByteBuffer.allocate(OVERHEAD + body.length);
    b.putInt(MAGIC)
        .putShort((short) VERSION)
        .put((byte) type)
        .put((byte) 0)
        .putLong(entry.streamId())
        .putInt(entry.partition())
        .putInt(body.length)
        .put(body);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, b.position());
    b.putInt((int) crc.getValue());
    return b.array();
  }

  /**
   * Decodes one entry, checking every field (docs/formats/journal-entry-v1.md "Reading").
   *
   * @throws CorruptionException naming the first field that fails its check
   */
  public static JournalEntry decode(byte[] bytes) {
    if (bytes.length < OVERHEAD) {
      throw new CorruptionException("journal entry: truncated length=" + bytes.length);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    int magic = b.getInt(MAGIC_OFFSET);
    if (magic != MAGIC) {
      throw new CorruptionException(
          "journal entry: bad magic magic=0x" + Integer.toHexString(magic));
    }
    int version = Short.toUnsignedInt(b.getShort(VERSION_OFFSET));
    if (version != VERSION) {
      throw new CorruptionException("journal entry: unsupported version version=" + version);
    }
    int reserved = Byte.toUnsignedInt(b.get(RESERVED_OFFSET));
    if (reserved != 0) {
      throw new CorruptionException("journal entry: reserved byte not zero reserved=" + reserved);
    }
    long bodyLength = Integer.toUnsignedLong(b.getInt(BODY_LENGTH_OFFSET));
    if (bodyLength < 1 || bodyLength > MAX_BODY_BYTES || bodyLength != bytes.length - OVERHEAD) {
      throw new CorruptionException(
          "journal entry: bad body length bodyLength=" + bodyLength + " length=" + bytes.length);
    }
    int crcAt = BODY_OFFSET + (int) bodyLength;
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, crcAt);
    if ((int) crc.getValue() != b.getInt(crcAt)) {
      throw new CorruptionException("journal entry: bad crc32c");
    }
    int type = Byte.toUnsignedInt(b.get(TYPE_OFFSET));
    long stream = b.getLong(STREAM_OFFSET);
    int partition = b.getInt(PARTITION_OFFSET);
    if (stream < 0 || partition < 0) {
      throw new CorruptionException(
          "journal entry: negative stream or partition stream="
              + stream
              + " partition="
              + partition);
    }
    b.position(BODY_OFFSET).limit(crcAt);
    return switch (type) {
      case TYPE_HOST -> {
        if (bodyLength != 8) {
          throw new CorruptionException("journal entry: host body must be 8 bytes n=" + bodyLength);
        }
        long start = b.getLong();
        if (start < 0) {
          throw new CorruptionException("journal entry: negative start offset start=" + start);
        }
        yield new JournalEntry.Host(stream, partition, start);
      }
      case TYPE_APPEND -> {
        byte[] batch = new byte[(int) bodyLength];
        b.get(batch);
        JournalEntry.checkBatch(batch);
        yield new JournalEntry.Append(stream, partition, batch);
      }
      case TYPE_SEAL -> new JournalEntry.Seal(stream, partition, decodeSeal(b));
      case TYPE_RELEASE -> {
        if (bodyLength != 8) {
          throw new CorruptionException(
              "journal entry: release body must be 8 bytes n=" + bodyLength);
        }
        long end = b.getLong();
        if (end < 0) {
          throw new CorruptionException("journal entry: negative end offset end=" + end);
        }
        yield new JournalEntry.Release(stream, partition, end);
      }
      default -> throw new CorruptionException("journal entry: unknown type type=" + type);
    };
  }

  private static SegmentPointer decodeSeal(ByteBuffer b) {
    if (b.remaining() < 18) {
      throw new CorruptionException("journal entry: seal body too short n=" + b.remaining());
    }
    long base = b.getLong();
    long end = b.getLong();
    int keyLength = Short.toUnsignedInt(b.getShort());
    if (keyLength < 1 || keyLength > SegmentPointer.MAX_KEY_BYTES || keyLength != b.remaining()) {
      throw new CorruptionException(
          "journal entry: bad seal key length keyLength=" + keyLength + " left=" + b.remaining());
    }
    if (base < 0 || end <= base) {
      throw new CorruptionException(
          "journal entry: bad seal range baseOffset=" + base + " endOffset=" + end);
    }
    return new SegmentPointer(base, end, utf8(b, keyLength, "seal key"));
  }

  /** Reads {@code n} bytes of strictly valid UTF-8. */
  static String utf8(ByteBuffer b, int n, String what) {
    ByteBuffer slice = b.slice(b.position(), n);
    b.position(b.position() + n);
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(slice)
          .toString();
    } catch (CharacterCodingException e) {
      throw new CorruptionException("journal: " + what + " is not valid UTF-8", e);
    }
  }
}
