package dev.loam.core.maintain;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The compactor's key → highest offset map with a fixed memory bound (like Kafka's {@code
 * SkimpyOffsetMap}): each slot holds a 16-byte MD5 of the key and an offset, 24 bytes, in one
 * {@code long[]} with linear probing, filled to at most 90 %. MD5 is used as a well-mixed
 * fingerprint, not for security; two keys colliding on 128 bits is not a practical concern. Not
 * thread-safe.
 */
final class OffsetMap {
  static final int SLOT_BYTES = 24;
  static final double MAX_LOAD = 0.9;

  private final long[] slots;
  private final int capacity;
  private final int maxEntries;
  private final MessageDigest md5;
  private int size;

  /**
   * @param maxBytes the memory bound
   * @param expectedKeys an upper bound on the keys to be put (the map is sized for it when smaller
   *     than the bound allows)
   */
  OffsetMap(long maxBytes, long expectedKeys) {
    long bySize = maxBytes / SLOT_BYTES;
    long byKeys = (long) Math.ceil(Math.max(1, expectedKeys) / MAX_LOAD) + 1;
    long cap = Math.min(bySize, byKeys);
    cap = Math.max(2, Math.min(cap, (Integer.MAX_VALUE - 8) / 3));
    this.capacity = (int) cap;
    this.maxEntries = Math.max(1, (int) (capacity * MAX_LOAD));
    this.slots = new long[capacity * 3];
    try {
      this.md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new LoamException(Kind.INTERNAL, "MD5 is not available in this JVM", e);
    }
  }

  /** Keys the map can take before it is full. */
  int maxEntries() {
    return maxEntries;
  }

  int size() {
    return size;
  }

  /**
   * Records {@code offset} for {@code key} if it is higher than the one held.
   *
   * @throws LoamException INTERNAL if the map is full (callers check {@link #maxEntries} first)
   */
  void put(byte[] key, long offset) {
    long[] h = hash(key);
    int i = slot(h[0]);
    while (true) {
      int at = i * 3;
      if (slots[at + 2] == 0) {
        if (size >= maxEntries) {
          throw new LoamException(Kind.INTERNAL, "compaction offset map full size=" + size);
        }
        slots[at] = h[0];
        slots[at + 1] = h[1];
        slots[at + 2] = offset + 1;
        size++;
        return;
      }
      if (slots[at] == h[0] && slots[at + 1] == h[1]) {
        slots[at + 2] = Math.max(slots[at + 2], offset + 1);
        return;
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
  }

  /** The highest offset put for {@code key}, or -1. */
  long get(byte[] key) {
    long[] h = hash(key);
    int i = slot(h[0]);
    while (true) {
      int at = i * 3;
      if (slots[at + 2] == 0) {
        return -1;
      }
      if (slots[at] == h[0] && slots[at + 1] == h[1]) {
        return slots[at + 2] - 1;
      }
      i = i + 1 == capacity ? 0 : i + 1;
    }
  }

  private int slot(long h) {
    return (int) Long.remainderUnsigned(h, capacity);
  }

  private long[] hash(byte[] key) {
    byte[] d = md5.digest(key);
    long a = 0;
    long b = 0;
    for (int i = 0; i < 8; i++) {
      a = (a << 8) | (d[i] & 0xff);
      b = (b << 8) | (d[i + 8] & 0xff);
    }
    return new long[] {a, b};
  }
}
