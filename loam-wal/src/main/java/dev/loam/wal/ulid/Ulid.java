package dev.loam.wal.ulid;

import dev.loam.error.LoamException;

/**
 * A 128-bit ULID (docs/formats/ulid.md): 48-bit millisecond timestamp then 80 random bits. Names
 * WAL objects; orders like its string and byte forms (unsigned).
 */
public record Ulid(long msb, long lsb) implements Comparable<Ulid> {
  /** Length of the canonical string form. */
  public static final int STRING_LENGTH = 26;

  /** Length of the binary form. */
  public static final int BYTES = 16;

  /** Largest timestamp a ULID can carry (48 bits). */
  public static final long MAX_TIMESTAMP = (1L << 48) - 1;

  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final byte[] DECODE = new byte[128];

  static {
    java.util.Arrays.fill(DECODE, (byte) -1);
    for (int i = 0; i < ALPHABET.length; i++) {
      DECODE[ALPHABET[i]] = (byte) i;
      DECODE[Character.toLowerCase(ALPHABET[i])] = (byte) i;
    }
  }

  /** Milliseconds since the Unix epoch (the top 48 bits). */
  public long timestampMillis() {
    return msb >>> 16;
  }

  @Override
  public int compareTo(Ulid o) {
    int c = Long.compareUnsigned(msb, o.msb);
    return c != 0 ? c : Long.compareUnsigned(lsb, o.lsb);
  }

  /** The canonical 26-character upper-case Crockford base32 form. */
  @Override
  public String toString() {
    char[] out = new char[STRING_LENGTH];
    // 130 bits of characters for 128 bits of value: the first char holds the top 3 bits.
    for (int i = STRING_LENGTH - 1; i >= 0; i--) {
      int shift = (STRING_LENGTH - 1 - i) * 5; // bit position of this char's lowest bit
      out[i] = ALPHABET[bits(shift)];
    }
    return new String(out);
  }

  private int bits(int shift) {
    // 5 bits starting at bit `shift` of the 128-bit value (bit 0 = lsb of lsb).
    long v;
    if (shift + 5 <= 64) {
      v = lsb >>> shift;
    } else if (shift >= 64) {
      v = msb >>> (shift - 64);
    } else {
      v = (lsb >>> shift) | (msb << (64 - shift));
    }
    return (int) (v & 31);
  }

  /**
   * Parses the 26-character form (either case).
   *
   * @throws LoamException INVALID if the length, a character, or the first character's range (at
   *     most '7') is wrong
   * @throws NullPointerException if {@code s} is null
   */
  public static Ulid parse(String s) {
    if (s.length() != STRING_LENGTH) {
      throw invalid(s, "length=" + s.length() + " expected=26");
    }
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < STRING_LENGTH; i++) {
      char ch = s.charAt(i);
      int d = ch < 128 ? DECODE[ch] : -1;
      if (d < 0) {
        throw invalid(s, "character at index=" + i);
      }
      if (i == 0 && d > 7) {
        throw invalid(s, "overflow first character exceeds 7");
      }
      // Shift the 128-bit (hi, lo) left by 5 and add d.
      hi = (hi << 5) | (lo >>> 59);
      lo = (lo << 5) | d;
    }
    return new Ulid(hi, lo);
  }

  private static LoamException invalid(String s, String why) {
    return new LoamException(LoamException.Kind.INVALID, "invalid ulid " + why + " ulid=" + s);
  }

  /** The 16-byte big-endian binary form. */
  public byte[] toBytes() {
    byte[] b = new byte[BYTES];
    writeTo(b, 0);
    return b;
  }

  /**
   * Writes the 16-byte binary form at {@code off}.
   *
   * @throws IndexOutOfBoundsException if fewer than 16 bytes fit
   */
  public void writeTo(byte[] b, int off) {
    java.util.Objects.checkFromIndexSize(off, BYTES, b.length);
    for (int i = 0; i < 8; i++) {
      b[off + i] = (byte) (msb >>> (56 - 8 * i));
      b[off + 8 + i] = (byte) (lsb >>> (56 - 8 * i));
    }
  }

  /**
   * Reads the 16-byte binary form at {@code off}.
   *
   * @throws LoamException INVALID if fewer than 16 bytes are available at {@code off}
   */
  public static Ulid fromBytes(byte[] b, int off) {
    if (off < 0 || off > b.length - BYTES) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "ulid bytes out of range offset=" + off + " length=" + b.length);
    }
    long hi = 0;
    long lo = 0;
    for (int i = 0; i < 8; i++) {
      hi = (hi << 8) | (b[off + i] & 0xff);
      lo = (lo << 8) | (b[off + 8 + i] & 0xff);
    }
    return new Ulid(hi, lo);
  }
}
