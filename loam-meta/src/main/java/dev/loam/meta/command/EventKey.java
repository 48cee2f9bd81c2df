package dev.loam.meta.command;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A CloudEvents idempotency key: the 32 bytes of SHA-256(source ‖ 0x00 ‖ id). Ordered by its bytes,
 * unsigned, as the ledger's snapshot section is.
 */
public final class EventKey implements Comparable<EventKey> {
  /** The length of every key. */
  public static final int LENGTH = 32;

  private final byte[] bytes;

  /**
   * The key {@code bytes} (copied).
   *
   * @throws IllegalArgumentException unless there are exactly {@link #LENGTH} bytes
   */
  public EventKey(byte[] bytes) {
    if (bytes.length != LENGTH) {
      throw new IllegalArgumentException(
          "an event key is " + LENGTH + " bytes, got length=" + bytes.length);
    }
    this.bytes = bytes.clone();
  }

  /** The key's bytes (a copy). */
  public byte[] bytes() {
    return bytes.clone();
  }

  @Override
  public int compareTo(EventKey o) {
    return Arrays.compareUnsigned(bytes, o.bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EventKey k && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return HexFormat.of().formatHex(bytes, 0, 8) + "…";
  }
}
