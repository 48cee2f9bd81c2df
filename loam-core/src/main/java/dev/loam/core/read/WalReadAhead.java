package dev.loam.core.read;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recently read WAL objects kept in memory (docs/design/read-path.md "Read tiers"): the bytes of a
 * read-ahead GET (the whole object, or a prefix of it when the object is larger than one GET), so
 * later readers of other partitions in the same object need no GET of their own. Bounded in bytes
 * (the arrays held, counted exactly); least recently used object evicted first, whole; an object
 * larger than the bound is not kept. WAL objects are immutable and their keys are never reused (the
 * writer {@code create}s {@code wal/<class>/<node>/<ulid>.wal} if absent, ULIDs unique per node),
 * so bytes cached by key never go stale. Thread-safe.
 */
final class WalReadAhead {
  private final long capacityBytes;
  private final ReadCounters stats;
  private final LinkedHashMap<String, Held> objects = new LinkedHashMap<>(16, 0.75f, true);
  private long bytes;

  /**
   * The bytes {@code [start, start + bytes.length)} of an object; {@code complete} when the object
   * ends there (its GET was cut short).
   */
  private record Held(long start, byte[] bytes, boolean complete) {}

  WalReadAhead(long capacityBytes, ReadCounters stats) {
    this.capacityBytes = capacityBytes;
    this.stats = stats;
    stats.walReadAheadGauge(this::bytes);
  }

  /**
   * Keeps the bytes {@code [start, start + b.length)} of {@code key}; {@code complete} when they
   * run to the object's end. Replaces what was held for the key.
   */
  void put(String key, long start, byte[] b, boolean complete) {
    int evicted = 0;
    synchronized (this) {
      Held old = objects.remove(key);
      if (old != null) {
        bytes -= old.bytes().length;
      }
      if (b.length > capacityBytes) {
        return;
      }
      objects.put(key, new Held(start, b, complete));
      bytes += b.length;
      Iterator<Map.Entry<String, Held>> it = objects.entrySet().iterator();
      while (bytes > capacityBytes && it.hasNext()) {
        Map.Entry<String, Held> e = it.next();
        if (e.getKey().equals(key)) {
          continue;
        }
        bytes -= e.getValue().bytes().length;
        it.remove();
        evicted++;
      }
    }
    if (evicted > 0) {
      stats.walReadAheadEvictions(evicted);
    }
  }

  /**
   * A copy of the bytes {@code [offset, offset + length)} of {@code key} if held (cut at the
   * object's end, like a ranged GET, when the held bytes run to it), else null. {@code touch} marks
   * the object recently used.
   */
  byte[] get(String key, long offset, int length, boolean touch) {
    Held h;
    synchronized (this) {
      h = touch ? objects.get(key) : peek(key);
    }
    return h == null ? null : slice(h.start(), h.bytes(), h.complete(), offset, length);
  }

  private Held peek(String key) {
    for (Map.Entry<String, Held> e : objects.entrySet()) {
      if (e.getKey().equals(key)) {
        return e.getValue();
      }
    }
    return null;
  }

  /**
   * The copy of {@code [offset, offset + length)} from bytes {@code b} at {@code start} of their
   * object, or null if they do not hold it.
   */
  static byte[] slice(long start, byte[] b, boolean complete, long offset, int length) {
    long end = start + b.length;
    if (offset < start || (!complete && offset + length > end)) {
      return null;
    }
    int from = (int) Math.min(offset - start, b.length);
    int to = (int) Math.min(offset - start + length, b.length);
    return Arrays.copyOfRange(b, from, to);
  }

  /** Drops the objects named (GC deleted them). */
  synchronized void invalidate(List<String> keys) {
    for (String k : keys) {
      Held old = objects.remove(k);
      if (old != null) {
        bytes -= old.bytes().length;
      }
    }
  }

  synchronized long bytes() {
    return bytes;
  }

  synchronized int objects() {
    return objects.size();
  }
}
