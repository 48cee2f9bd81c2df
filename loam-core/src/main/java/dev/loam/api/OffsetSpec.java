package dev.loam.api;

/** Which offset {@link Log#listOffset} should find. */
public sealed interface OffsetSpec {
  /** The log start offset: the first readable record. */
  record Earliest() implements OffsetSpec {}

  /** The high watermark: the offset the next appended record will get. */
  record Latest() implements OffsetSpec {}

  /**
   * The first offset whose record timestamp is at or after {@code millis}; the high watermark if
   * there is none (as Kafka's ListOffsets).
   */
  record ForTimestamp(long millis) implements OffsetSpec {}

  static OffsetSpec earliest() {
    return new Earliest();
  }

  static OffsetSpec latest() {
    return new Latest();
  }

  static OffsetSpec forTimestamp(long millis) {
    return new ForTimestamp(millis);
  }
}
