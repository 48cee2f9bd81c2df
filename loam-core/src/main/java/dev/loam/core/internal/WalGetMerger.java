package dev.loam.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Merges ranged GETs of one WAL object (stream-engine.txt §6: one GET feeds many consumers). A WAL
 * object holds chunks of many partitions, and consumers of those partitions catching up ask for
 * them at about the same time; one GET per chunk would multiply requests (and per-request cost) by
 * the partitions. Rule: at most one GET per WAL object is in flight on the node. A range asked for
 * while one is in flight waits; when it ends, every range that queued meanwhile goes out in one GET
 * covering all of them (gaps included, at most {@code maxSpan} bytes; ranges beyond wait for the
 * next GET). An idle object's first range goes out at once, so a lone reader pays no latency. No
 * timers, no threads. Thread-safe.
 */
final class WalGetMerger {
  private final Getter getter;
  private final ReadStats stats;
  private final int maxSpan;
  private final Map<String, List<Waiter>> queues = new HashMap<>();

  /** The store's ranged GET. */
  @FunctionalInterface
  interface Getter {
    CompletableFuture<byte[]> get(String key, long offset, int length);
  }

  private record Waiter(long offset, int length, CompletableFuture<byte[]> bytes) {
    long end() {
      return offset + length;
    }
  }

  /**
   * @param maxSpan the largest merged GET in bytes (a single range larger than it still goes out
   *     alone)
   */
  WalGetMerger(Getter getter, ReadStats stats, int maxSpan) {
    this.getter = getter;
    this.stats = stats;
    this.maxSpan = maxSpan;
  }

  /**
   * The bytes {@code [offset, offset + length)} of {@code key}, possibly from a GET shared with
   * other ranges of it; cut short if the object ends earlier (like a ranged GET).
   */
  CompletableFuture<byte[]> get(String key, long offset, int length) {
    Waiter w = new Waiter(offset, length, new CompletableFuture<>());
    synchronized (this) {
      List<Waiter> queued = queues.get(key);
      if (queued != null) {
        queued.add(w); // a GET of this object is in flight: go with the next one
        return w.bytes();
      }
      queues.put(key, new ArrayList<>());
    }
    issue(key, List.of(w));
    return w.bytes();
  }

  /** Objects with a GET in flight now; for tests. */
  synchronized int inFlight() {
    return queues.size();
  }

  private void issue(String key, List<Waiter> group) {
    long start = Long.MAX_VALUE;
    long end = 0;
    for (Waiter w : group) {
      start = Math.min(start, w.offset());
      end = Math.max(end, w.end());
    }
    CompletableFuture<byte[]> got;
    try {
      got = getter.get(key, start, (int) (end - start));
    } catch (RuntimeException e) {
      got = CompletableFuture.failedFuture(e);
    }
    long from = start;
    got.whenComplete(
        (b, t) -> {
          if (group.size() > 1) {
            stats.walMergedGet(group.size());
          }
          // Start the next GET first, so the queue does not wait on the waiters' callbacks.
          next(key);
          for (Waiter w : group) {
            if (t != null) {
              w.bytes().completeExceptionally(t);
            } else {
              w.bytes().complete(cut(b, w.offset() - from, w.length()));
            }
          }
        });
  }

  private static byte[] cut(byte[] b, long at, int length) {
    if (at == 0 && b.length == length) {
      return b;
    }
    int from = (int) Math.min(at, b.length);
    int to = (int) Math.min(at + length, b.length);
    return Arrays.copyOfRange(b, from, to);
  }

  private void next(String key) {
    List<Waiter> group = new ArrayList<>();
    synchronized (this) {
      List<Waiter> queued = queues.get(key);
      if (queued == null || queued.isEmpty()) {
        queues.remove(key);
        return;
      }
      queued.sort(Comparator.comparingLong(Waiter::offset));
      long start = queued.get(0).offset();
      Iterator<Waiter> it = queued.iterator();
      while (it.hasNext()) {
        Waiter w = it.next();
        if (group.isEmpty() || w.end() - start <= maxSpan) {
          group.add(w);
          it.remove();
        }
      }
    }
    issue(key, group);
  }
}
