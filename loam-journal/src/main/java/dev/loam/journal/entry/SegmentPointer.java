package dev.loam.journal.entry;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A sealed range of one partition: offsets {@code [baseOffset, endOffset)} live in the segment
 * object {@code key}.
 *
 * @param baseOffset the first offset the segment holds, ≥ 0
 * @param endOffset one past the last offset, > baseOffset
 * @param key the segment object's key, 1..{@value #MAX_KEY_BYTES} bytes of UTF-8
 */
public record SegmentPointer(long baseOffset, long endOffset, String key) {
  /** The longest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 1024;

  /**
   * @throws LoamException INVALID naming the field that is out of range
   */
  public SegmentPointer {
    Objects.requireNonNull(key, "key");
    if (baseOffset < 0 || endOffset <= baseOffset) {
      throw new LoamException(
          Kind.INVALID,
          "segment pointer needs 0 <= baseOffset < endOffset baseOffset="
              + baseOffset
              + " endOffset="
              + endOffset);
    }
    int n = key.getBytes(StandardCharsets.UTF_8).length;
    if (n < 1 || n > MAX_KEY_BYTES) {
      throw new LoamException(
          Kind.INVALID,
          "segment pointer key must be 1.." + MAX_KEY_BYTES + " UTF-8 bytes keyBytes=" + n);
    }
  }
}
