package dev.loam.core.read;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Shares one load of an object's byte range among every reader that asks for it, or for a range
 * inside it, while it is in flight (stream-engine.txt §6: reads of recent data are coalesced, one
 * GET feeds many consumers). Objects are immutable, so any in-flight load covering the asked range
 * has the right bytes. An entry leaves the map when its load and its follow-up (the disk-cache
 * write) end, so a reader arriving in between still shares it instead of loading again. Bounded:
 * beyond {@code maxInFlight} loads a reader loads alone. Thread-safe.
 */
final class GetCoalescer {
  private final int maxInFlight;
  private final ReadCounters stats;
  private final Map<String, List<InFlight>> byObject = new HashMap<>();
  private int inFlight;

  private record InFlight(long offset, int length, CompletableFuture<byte[]> bytes) {
    boolean covers(long off, int len) {
      return off >= offset && off + len <= offset + length;
    }
  }

  GetCoalescer(int maxInFlight, ReadCounters stats) {
    this.maxInFlight = maxInFlight;
    this.stats = stats;
  }

  /**
   * The bytes {@code [offset, offset + length)} of {@code objectKey}: from a load in flight that
   * covers them, else from {@code loader}, whose result is then shared until {@code after} (given
   * the loaded bytes) completes.
   */
  CompletableFuture<byte[]> load(
      String objectKey,
      long offset,
      int length,
      Supplier<CompletableFuture<byte[]>> loader,
      Function<byte[], CompletableFuture<?>> after) {
    InFlight mine;
    synchronized (this) {
      List<InFlight> list = byObject.get(objectKey);
      if (list != null) {
        for (InFlight f : list) {
          if (f.covers(offset, length)) {
            stats.coalescedWait();
            return slice(f, offset, length);
          }
        }
      }
      if (inFlight >= maxInFlight) {
        mine = null;
      } else {
        mine = new InFlight(offset, length, new CompletableFuture<>());
        byObject.computeIfAbsent(objectKey, k -> new ArrayList<>(2)).add(mine);
        inFlight++;
      }
    }
    if (mine == null) {
      return loader.get();
    }
    CompletableFuture<byte[]> loaded;
    try {
      loaded = loader.get();
    } catch (RuntimeException e) {
      loaded = CompletableFuture.failedFuture(e);
    }
    loaded.whenComplete(
        (b, t) -> {
          if (t != null) {
            remove(objectKey, mine);
            mine.bytes().completeExceptionally(t);
            return;
          }
          // Waiters get the bytes now; the entry stays until the follow-up ends.
          mine.bytes().complete(b);
          CompletableFuture<?> done;
          try {
            done = after.apply(b);
          } catch (RuntimeException e) {
            done = CompletableFuture.completedFuture(null);
          }
          done.whenComplete((x, y) -> remove(objectKey, mine));
        });
    return mine.bytes();
  }

  private static CompletableFuture<byte[]> slice(InFlight f, long offset, int length) {
    if (f.offset() == offset && f.length() == length) {
      return f.bytes();
    }
    int from = (int) (offset - f.offset());
    return f.bytes().thenApply(b -> Arrays.copyOfRange(b, from, from + length));
  }

  private synchronized void remove(String objectKey, InFlight f) {
    List<InFlight> list = byObject.get(objectKey);
    if (list != null && list.remove(f)) {
      inFlight--;
      if (list.isEmpty()) {
        byObject.remove(objectKey);
      }
    }
  }

  /** Loads in flight now; for tests. */
  synchronized int inFlight() {
    return inFlight;
  }
}
