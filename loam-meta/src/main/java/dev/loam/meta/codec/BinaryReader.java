package dev.loam.meta.codec;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A bounds-checked big-endian reader for the metastore's binary formats. Every read names the field
 * it reads, so a truncated or malformed input fails with a {@link CorruptionException} that says
 * which field of which format was bad. Not thread-safe.
 */
public final class BinaryReader {
  private final String format;
  private final byte[] buf;
  private final int end;
  private int pos;

  public BinaryReader(String format, byte[] buf) {
    this(format, buf, 0, buf.length);
  }

  public BinaryReader(String format, byte[] buf, int offset, int length) {
    this.format = format;
    this.buf = buf;
    this.pos = offset;
    this.end = offset + length;
  }

  public int position() {
    return pos;
  }

  public int remaining() {
    return end - pos;
  }

  /** A corruption error for this format naming {@code field}. */
  public CorruptionException corrupt(String field, String problem) {
    return new CorruptionException(
        format + ": " + problem + " field=" + field + " position=" + pos);
  }

  private void need(int n, String field) {
    if (n > end - pos) {
      throw corrupt(field, "truncated need=" + n + " remaining=" + (end - pos));
    }
  }

  public int u8(String field) {
    need(1, field);
    return buf[pos++] & 0xFF;
  }

  public boolean bool(String field) {
    int v = u8(field);
    if (v > 1) {
      throw corrupt(field, "bad boolean value=" + v);
    }
    return v == 1;
  }

  public short i16(String field) {
    need(2, field);
    int v = ((buf[pos] & 0xFF) << 8) | (buf[pos + 1] & 0xFF);
    pos += 2;
    return (short) v;
  }

  public int i32(String field) {
    need(4, field);
    int v =
        ((buf[pos] & 0xFF) << 24)
            | ((buf[pos + 1] & 0xFF) << 16)
            | ((buf[pos + 2] & 0xFF) << 8)
            | (buf[pos + 3] & 0xFF);
    pos += 4;
    return v;
  }

  public long i64(String field) {
    need(8, field);
    long hi = i32(field) & 0xFFFFFFFFL;
    long lo = i32(field) & 0xFFFFFFFFL;
    return (hi << 32) | lo;
  }

  /**
   * A count of following elements, each at least {@code minElementBytes} long: checked against the
   * remaining bytes so that a corrupt count cannot make the decoder allocate unbounded memory.
   */
  public int count(String field, int minElementBytes) {
    int n = i32(field);
    if (n < 0 || (long) n * Math.max(1, minElementBytes) > remaining()) {
      throw corrupt(field, "bad count=" + n + " remaining=" + remaining());
    }
    return n;
  }

  public byte[] raw(int n, String field) {
    need(n, field);
    byte[] out = new byte[n];
    System.arraycopy(buf, pos, out, 0, n);
    pos += n;
    return out;
  }

  /** An i32 length, then that many bytes. */
  public byte[] bytes(String field) {
    int n = i32(field);
    if (n < 0) {
      throw corrupt(field, "bad length=" + n);
    }
    return raw(n, field);
  }

  public String string(String field) {
    String s = nullableString(field);
    if (s == null) {
      throw corrupt(field, "null where a string is required");
    }
    return s;
  }

  public String nullableString(String field) {
    int n = i32(field);
    if (n == -1) {
      return null;
    }
    if (n < 0) {
      throw corrupt(field, "bad string length=" + n);
    }
    need(n, field);
    try {
      String s =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(buf, pos, n))
              .toString();
      pos += n;
      return s;
    } catch (CharacterCodingException e) {
      throw corrupt(field, "invalid UTF-8");
    }
  }

  /** Fails unless every byte was consumed: trailing bytes mean a framing or version mismatch. */
  public void expectEnd() {
    if (pos != end) {
      throw corrupt("end", "trailing bytes count=" + (end - pos));
    }
  }
}
