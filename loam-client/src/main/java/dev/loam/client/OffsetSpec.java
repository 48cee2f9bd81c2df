package dev.loam.client;

/**
 * Which offset {@link LoamClient#offset} looks up: the log start, the high watermark, or the first
 * record at or after a timestamp.
 */
public sealed interface OffsetSpec {
  /** The log start offset. */
  record Earliest() implements OffsetSpec {}

  /** The high watermark: the offset the next record gets. */
  record Latest() implements OffsetSpec {}

  /** The first offset whose record timestamp is at or after {@code millis}. */
  record Timestamp(long millis) implements OffsetSpec {}

  static OffsetSpec earliest() {
    return new Earliest();
  }

  static OffsetSpec latest() {
    return new Latest();
  }

  static OffsetSpec timestamp(long millis) {
    return new Timestamp(millis);
  }
}
