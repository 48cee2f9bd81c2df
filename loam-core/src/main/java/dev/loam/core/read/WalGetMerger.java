package dev.loam.core.read;

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
 * the partitions. Rules: at most one GET per WAL object is in flight on the node. An idle object's
 * first range waits a short <b>gather window</b> (a few ms; none when {@code windowMicros} is 0)
 * for ranges of other partitions asked for meanwhile, then one GET covering all of them goes out
 * (gaps included, at most {@code maxSpan} bytes; ranges beyond wait for the next GET). A range
 * asked for while a GET is in flight waits for it to end and goes out with every range that queued
 * meanwhile. The window keeps consumers that catch up together in step: they all get their bytes
 * from the same GET and ask for the next object together, instead of the first one drifting a GET
 * ahead and the others following one by one. A lone reader pays the window once per uncached load.
 *
 * <p><b>Read-ahead</b> (when a {@link WalReadAhead} is given): a GET whose ranges end within {@code
 * maxSpan} fetches the object from its start up to {@code maxSpan} bytes (the whole object: WAL
 * objects are at most that large; the store cuts the range at the object's end) and keeps the bytes
 * in the read-ahead memory, so ranges of other partitions asked for later, and those queued behind
 * the GET, are served from memory without a GET. A failed GET keeps nothing. Thread-safe.
 */
final class WalGetMerger {
  private final Getter getter;
  private final ReadCounters stats;
  private final int maxSpan;
  private final Delayer delayer;
  private final long windowMicros;
  private final WalReadAhead readAhead;

  /**
   * Keys with a GET in flight or gathering, and the ranges waiting for the next GET of each. A key
   * is present from its first range until no GET is in flight and nothing waits.
   */
  private final Map<String, List<Waiter>> queues = new HashMap<>();

  /** Runs a task after a delay (the node's scheduler). */
  @FunctionalInterface
  public interface Delayer {
    void after(long micros, Runnable task);
  }

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
  WalGetMerger(Getter getter, ReadCounters stats, int maxSpan) {
    this(getter, stats, maxSpan, null, 0);
  }

  /**
   * @param delayer runs the end of a gather window; null for none
   * @param windowMicros how long an idle object's first range waits for others (0: not at all)
   */
  WalGetMerger(Getter getter, ReadCounters stats, int maxSpan, Delayer delayer, long windowMicros) {
    this(getter, stats, maxSpan, delayer, windowMicros, null);
  }

  /**
   * @param readAhead where whole objects read ahead are kept; null for no read-ahead (a GET covers
   *     exactly its ranges)
   */
  WalGetMerger(
      Getter getter,
      ReadCounters stats,
      int maxSpan,
      Delayer delayer,
      long windowMicros,
      WalReadAhead readAhead) {
    this.readAhead = readAhead;
    this.getter = getter;
    this.stats = stats;
    this.maxSpan = maxSpan;
    this.delayer = delayer;
    this.windowMicros = delayer == null ? 0 : windowMicros;
  }

  /**
   * The bytes {@code [offset, offset + length)} of {@code key}, possibly from a GET shared with
   * other ranges of it; cut short if the object ends earlier (like a ranged GET).
   */
  CompletableFuture<byte[]> get(String key, long offset, int length) {
    Waiter w = new Waiter(offset, length, new CompletableFuture<>());
    synchronized (this) {
      if (readAhead != null) {
        byte[] held = readAhead.get(key, offset, length, true);
        if (held != null) {
          stats.walReadAheadHit();
          return CompletableFuture.completedFuture(held);
        }
      }
      List<Waiter> queued = queues.get(key);
      if (queued != null) {
        queued.add(w); // gathering, or a GET of this object is in flight: go with the next one
        return w.bytes();
      }
      if (windowMicros > 0) {
        List<Waiter> gather = new ArrayList<>();
        gather.add(w);
        queues.put(key, gather);
      } else {
        queues.put(key, new ArrayList<>());
      }
    }
    if (windowMicros > 0) {
      try {
        delayer.after(windowMicros, () -> next(key));
      } catch (RuntimeException e) {
        next(key); // the scheduler is shutting down: go now
      }
      return w.bytes();
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
    if (readAhead != null && end <= maxSpan) {
      start = 0; // read ahead: the whole object (the store cuts the range at its end)
      end = maxSpan;
    }
    int asked = (int) (end - start);
    CompletableFuture<byte[]> got;
    try {
      got = getter.get(key, start, asked);
    } catch (RuntimeException e) {
      got = CompletableFuture.failedFuture(e);
    }
    long from = start;
    got.whenComplete(
        (b, t) -> {
          if (group.size() > 1) {
            stats.walMergedGet(group.size());
          }
          List<Waiter> served = List.of();
          if (t == null && readAhead != null) {
            served = keep(key, from, b, b.length < asked);
          }
          // Start the next GET first, so the queue does not wait on the waiters' callbacks.
          next(key);
          for (Waiter w : group) {
            if (t != null) {
              w.bytes().completeExceptionally(t);
            } else {
              // With read-ahead the array is also held in memory: never hand it out itself.
              w.bytes()
                  .complete(
                      readAhead != null
                          ? WalReadAhead.slice(from, b, true, w.offset(), w.length())
                          : cut(b, w.offset() - from, w.length()));
            }
          }
          for (Waiter w : served) {
            stats.walReadAheadHit();
            w.bytes()
                .complete(WalReadAhead.slice(from, b, b.length < asked, w.offset(), w.length()));
          }
        });
  }

  /**
   * Keeps the bytes read at {@code from} in the read-ahead memory and takes out of the queue the
   * ranges they hold.
   */
  private List<Waiter> keep(String key, long from, byte[] b, boolean complete) {
    List<Waiter> served = new ArrayList<>();
    synchronized (this) {
      readAhead.put(key, from, b, complete);
      List<Waiter> queued = queues.get(key);
      if (queued != null) {
        Iterator<Waiter> it = queued.iterator();
        while (it.hasNext()) {
          Waiter w = it.next();
          if (w.offset() >= from && (complete || w.end() <= from + b.length)) {
            served.add(w);
            it.remove();
          }
        }
      }
    }
    return served;
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
