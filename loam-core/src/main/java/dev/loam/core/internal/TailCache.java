package dev.loam.core.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Recently committed batches kept in memory (stream-engine.txt §6 step 2, first tier), keyed by
 * where they live in their WAL object, so a fetch of the tail needs no GET. Filled at commit time
 * by the writing node. Bounded in bytes; evicts the oldest insertion first. Thread-safe.
 */
final class TailCache {
  private final long capacityBytes;
  private final LinkedHashMap<Key, byte[]> entries = new LinkedHashMap<>();
  private long bytes;
  private long hits;
  private long misses;

  record Key(String objectKey, long byteOffset) {}

  TailCache(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /** Remembers one committed batch's bytes at {@code byteOffset} of {@code objectKey}. */
  synchronized void put(String objectKey, long byteOffset, byte[] batch) {
    if (batch.length > capacityBytes) {
      return;
    }
    byte[] old = entries.put(new Key(objectKey, byteOffset), batch);
    bytes += batch.length - (old == null ? 0 : old.length);
    var it = entries.entrySet().iterator();
    while (bytes > capacityBytes && it.hasNext()) {
      Map.Entry<Key, byte[]> e = it.next();
      bytes -= e.getValue().length;
      it.remove();
    }
  }

  /**
   * The bytes {@code [byteOffset, byteOffset + length)} of {@code objectKey} if every batch in that
   * range is cached, else null.
   */
  synchronized byte[] get(String objectKey, long byteOffset, int length) {
    byte[] first = entries.get(new Key(objectKey, byteOffset));
    if (first != null && first.length == length) {
      hits++;
      return first;
    }
    if (first == null) {
      misses++;
      return null;
    }
    byte[] out = new byte[length];
    int filled = 0;
    while (filled < length) {
      byte[] b = entries.get(new Key(objectKey, byteOffset + filled));
      if (b == null || filled + b.length > length) {
        misses++;
        return null;
      }
      System.arraycopy(b, 0, out, filled, b.length);
      filled += b.length;
    }
    hits++;
    return out;
  }

  synchronized long hits() {
    return hits;
  }

  synchronized long misses() {
    return misses;
  }
}
