package dev.loam.wal.fuzz;

import dev.loam.error.LoamException;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The contract every parser fuzz target checks: a parse either returns a value or throws a {@link
 * LoamException} of one of the documented kinds. Any other throwable (a runtime exception, an
 * assertion, an error) escapes and is a finding.
 */
final class FuzzContract {
  /** What the byte-format readers document: damage is CORRUPTION, a newer format is INVALID. */
  static final Set<LoamException.Kind> READER_KINDS =
      EnumSet.of(LoamException.Kind.CORRUPTION, LoamException.Kind.INVALID);

  private FuzzContract() {}

  /** The parse's value, or null when it threw a typed error of an allowed kind. */
  static <T> T valueOrTypedError(Set<LoamException.Kind> allowed, Supplier<T> parse) {
    try {
      return parse.get();
    } catch (LoamException e) {
      if (!allowed.contains(e.kind())) {
        throw new AssertionError("parser threw an undocumented kind " + e.kind(), e);
      }
      if (e.getMessage() == null || e.getMessage().isBlank()) {
        throw new AssertionError("parser threw a typed error without a message", e);
      }
      return null;
    }
  }

  /** Big-endian u16 at {@code at}, or -1 when it does not fit in {@code b}. */
  static int u16(byte[] b, int at) {
    if (at < 0 || at + 2 > b.length) {
      return -1;
    }
    return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
  }

  /** Big-endian i32 at {@code at}; the caller checked the bounds. */
  static int i32(byte[] b, int at) {
    return ((b[at] & 0xff) << 24)
        | ((b[at + 1] & 0xff) << 16)
        | ((b[at + 2] & 0xff) << 8)
        | (b[at + 3] & 0xff);
  }

  /** Big-endian i64 at {@code at}; the caller checked the bounds. */
  static long i64(byte[] b, int at) {
    return ((long) i32(b, at) << 32) | (i32(b, at + 4) & 0xffffffffL);
  }

  /**
   * Writes the CRC-32C of {@code b[from, from + len)} big-endian at {@code at}, so that mutated
   * structure behind a checksum reaches the parser. Does nothing when a range falls outside.
   */
  static void putCrc(byte[] b, int at, long from, long len) {
    if (at < 0 || at > b.length - 4 || from < 0 || len < 0 || from > b.length - len) {
      return;
    }
    CRC32C c = new CRC32C();
    c.update(b, (int) from, (int) len);
    int v = (int) c.getValue();
    b[at] = (byte) (v >>> 24);
    b[at + 1] = (byte) (v >>> 16);
    b[at + 2] = (byte) (v >>> 8);
    b[at + 3] = (byte) v;
  }
}
