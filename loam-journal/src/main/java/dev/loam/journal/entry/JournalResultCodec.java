package dev.loam.journal.entry;

import dev.loam.error.CorruptionException;
import dev.loam.journal.entry.JournalResult.Reason;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The reply to one journal proposal (docs/formats/journal-entry-v1.md "Reply"): the {@link
 * JournalResult} the leader's state machine answered. Pure and thread-safe.
 */
public final class JournalResultCodec {
  static final int HOSTED = 1;
  static final int APPENDED = 2;
  static final int DUPLICATE = 3;
  static final int SEALED = 4;
  static final int REJECTED = 5;

  /** Rejection messages are cut to this many UTF-8 bytes. */
  static final int MAX_MESSAGE_BYTES = 4096;

  private JournalResultCodec() {}

  /** The result's bytes. */
  public static byte[] encode(JournalResult r) {
    if (r instanceof JournalResult.Hosted h) {
      return ByteBuffer.allocate(9).put((byte) HOSTED).putLong(h.startOffset()).array();
    }
    if (r instanceof JournalResult.Appended a) {
      return ByteBuffer.allocate(17)
          .put((byte) APPENDED)
          .putLong(a.baseOffset())
          .putLong(a.lastOffset())
          .array();
    }
    if (r instanceof JournalResult.Duplicate d) {
      return ByteBuffer.allocate(17)
          .put((byte) DUPLICATE)
          .putLong(d.baseOffset())
          .putLong(d.lastOffset())
          .array();
    }
    if (r instanceof JournalResult.Sealed s) {
      return ByteBuffer.allocate(9).put((byte) SEALED).putLong(s.sealedOffset()).array();
    }
    JournalResult.Rejected x = (JournalResult.Rejected) r;
    byte[] m = cut(x.message());
    return ByteBuffer.allocate(4 + m.length)
        .put((byte) REJECTED)
        .put((byte) x.reason().code())
        .putShort((short) m.length)
        .put(m)
        .array();
  }

  /**
   * Decodes a reply.
   *
   * @throws CorruptionException if the bytes are not one reply
   */
  public static JournalResult decode(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    try {
      int tag = Byte.toUnsignedInt(b.get());
      JournalResult r =
          switch (tag) {
            case HOSTED -> new JournalResult.Hosted(b.getLong());
            case APPENDED -> new JournalResult.Appended(b.getLong(), b.getLong());
            case DUPLICATE -> new JournalResult.Duplicate(b.getLong(), b.getLong());
            case SEALED -> new JournalResult.Sealed(b.getLong());
            case REJECTED -> {
              int code = Byte.toUnsignedInt(b.get());
              Reason reason = Reason.of(code);
              if (reason == null) {
                throw new CorruptionException("journal reply: unknown reason code=" + code);
              }
              int n = Short.toUnsignedInt(b.getShort());
              if (n != b.remaining()) {
                throw new CorruptionException(
                    "journal reply: bad message length n=" + n + " left=" + b.remaining());
              }
              yield new JournalResult.Rejected(
                  reason, JournalEntryCodec.utf8(b, n, "reply message"));
            }
            default -> throw new CorruptionException("journal reply: unknown tag tag=" + tag);
          };
      if (b.hasRemaining()) {
        throw new CorruptionException("journal reply: trailing bytes n=" + b.remaining());
      }
      return r;
    } catch (BufferUnderflowException e) {
      throw new CorruptionException("journal reply: truncated length=" + bytes.length, e);
    }
  }

  private static byte[] cut(String message) {
    byte[] m = message.getBytes(StandardCharsets.UTF_8);
    if (m.length <= MAX_MESSAGE_BYTES) {
      return m;
    }
    // Cut at a character boundary so the message stays valid UTF-8.
    int n = MAX_MESSAGE_BYTES;
    while (n > 0 && (m[n] & 0xC0) == 0x80) {
      n--;
    }
    return java.util.Arrays.copyOf(m, n);
  }
}
