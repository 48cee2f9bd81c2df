package dev.loam.meta.fuzz;

import dev.loam.error.LoamException;
import java.util.function.Supplier;

/**
 * The contract the metastore's decoders document: malformed input is a {@code CorruptionException}
 * (kind CORRUPTION) with a message naming the field. Any other throwable escapes the fuzz target
 * and is a finding.
 */
final class Typed {
  private Typed() {}

  /** The decoded value, or null when decoding refused the input as corruption. */
  static <T> T valueOrCorruption(Supplier<T> decode) {
    try {
      return decode.get();
    } catch (LoamException e) {
      if (e.kind() != LoamException.Kind.CORRUPTION) {
        throw new AssertionError("decoder threw an undocumented kind " + e.kind(), e);
      }
      if (e.getMessage() == null || !e.getMessage().contains("field=")) {
        throw new AssertionError("corruption error does not name the field", e);
      }
      return null;
    }
  }
}
