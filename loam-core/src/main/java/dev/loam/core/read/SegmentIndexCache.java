package dev.loam.core.read;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.segment.SealedSegment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentReader;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The batch indexes of segments (segment-v1.md: footer and per-batch index), parsed once per
 * segment object and kept in memory, so a fetch at an offset inside a large segment entry (one
 * index entry per segment) or a fetch by timestamp finds its batches without reading the data. The
 * first use of a segment costs one suffix GET (footer and, usually, the whole index) and, for a
 * larger index, one more ranged GET; concurrent first uses share that load. Segments are immutable,
 * so a cached index never goes stale; indexes of deleted segments age out. Bounded by an estimate
 * of the parsed arrays' bytes, least recently used first; an index larger than the bound is used
 * and not kept. Thread-safe.
 */
final class SegmentIndexCache {
  /** Bytes of the first suffix GET: the footer plus an index of up to 2047 batches. */
  static final int TAIL_GUESS = 64 << 10;

  private final ObjectStore store;
  private final TransientRetry retry;
  private final ReadCounters stats;
  private final long capacityBytes;
  private final int blockBytes;
  // Access-ordered: iteration starts at the least recently used index.
  private final LinkedHashMap<String, Slot> slots = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  private static final class Slot {
    final CompletableFuture<SegmentIndex> index = new CompletableFuture<>();
    long weight = -1; // -1 while loading: not counted
  }

  /**
   * @param blockBytes the read unit: consecutive batches are grouped into blocks of at most this
   *     many bytes (a larger batch is a block alone), the same for every reader of a segment
   */
  SegmentIndexCache(ObjectStore store, ReadCounters stats, long capacityBytes, int blockBytes) {
    this(store, stats, capacityBytes, blockBytes, new TransientRetry(null, stats));
  }

  /** As above; transient store errors retried by {@code retry}. */
  SegmentIndexCache(
      ObjectStore store,
      ReadCounters stats,
      long capacityBytes,
      int blockBytes,
      TransientRetry retry) {
    this.store = store;
    this.retry = retry;
    this.stats = stats;
    this.capacityBytes = capacityBytes;
    this.blockBytes = blockBytes;
  }

  /** The parsed index of the segment {@code key}, loading it on first use. */
  CompletableFuture<SegmentIndex> get(String key) {
    Slot slot;
    synchronized (this) {
      Slot s = slots.get(key);
      if (s != null) {
        stats.segmentIndexHit();
        return s.index;
      }
      slot = new Slot();
      slots.put(key, slot);
    }
    CompletableFuture<SegmentIndex> loaded;
    try {
      loaded = retry.run(() -> load(key));
    } catch (RuntimeException e) {
      loaded = CompletableFuture.failedFuture(e);
    }
    loaded.whenComplete(
        (ix, t) -> {
          if (t != null) {
            synchronized (this) {
              slots.remove(key, slot); // failures are not remembered
            }
            slot.index.completeExceptionally(t);
            return;
          }
          synchronized (this) {
            if (slots.get(key) == slot) {
              slot.weight = ix.weight();
              bytes += slot.weight;
              evictLocked();
            }
          }
          slot.index.complete(ix);
        });
    return slot.index;
  }

  private void evictLocked() {
    Iterator<Map.Entry<String, Slot>> it = slots.entrySet().iterator();
    while (bytes > capacityBytes && it.hasNext()) {
      Slot s = it.next().getValue();
      if (s.weight >= 0) {
        bytes -= s.weight;
        it.remove();
      }
    }
  }

  /** Bytes of the indexes kept now (estimate); for tests and stats. */
  synchronized long bytes() {
    return bytes;
  }

  /** Indexes kept or loading now; for tests. */
  synchronized int size() {
    return slots.size();
  }

  private CompletableFuture<SegmentIndex> load(String key) {
    return store
        .getTail(key, TAIL_GUESS)
        .thenCompose(
            tail -> {
              stats.segmentIndexGet(tail.bytes().length);
              long size = tail.objectSize();
              SegmentReader.SegmentFooter footer = SegmentReader.parseFooter(tail.bytes(), size);
              long need = SegmentReader.requiredTailLength(footer, size);
              if (need <= tail.bytes().length) {
                return CompletableFuture.completedFuture(
                    SegmentReader.parseTail(tail.bytes(), size));
              }
              if (need > Integer.MAX_VALUE - 16) {
                throw new CorruptionException("segment index too large tailBytes=" + need);
              }
              return store
                  .get(key, size - need, (int) need)
                  .thenApply(
                      b -> {
                        stats.segmentIndexGet(b.length);
                        return SegmentReader.parseTail(b, size);
                      });
            })
        .handle(
            (parsed, t) -> {
              if (t == null) {
                return new SegmentIndex(key, parsed, blockBytes);
              }
              Throwable c =
                  t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
              if (c instanceof LoamException le && le.kind() == Kind.NOT_FOUND) {
                throw new ObjectGoneException(
                    "segment referenced by the offset index is missing object=" + key, c);
              }
              if (c instanceof CorruptionException ce) {
                throw new CorruptionException(ce.getMessage() + " key=" + key, ce);
              }
              throw c instanceof RuntimeException re ? re : new CompletionException(c);
            });
  }

  /**
   * One segment's batch index in flat arrays (about 28 bytes a batch), with the segment's read
   * blocks: batches grouped greedily from the first into runs of at most {@code blockBytes}.
   */
  static final class SegmentIndex {
    final String key;

    /** {@code count + 1} values: batch i's base offset; the last is the end offset. */
    final long[] baseOffsets;

    /** {@code count + 1} values: batch i's position; the last is the end of the data region. */
    final long[] positions;

    final long[] maxTimestamps;

    /** The first batch of each block, increasing, starting at 0. */
    final int[] blockStarts;

    /** A sealed segment's seal block (segment-v2.md), or null for a plain segment. */
    final SealedSegment.Seal seal;

    /** A sealed segment's batch index, which opening its batches needs; null for a plain one. */
    final List<SegmentBatch> sealedBatches;

    /** An arrow segment's column index bytes (arrow-batch-v1.md), empty for a kafka segment. */
    final byte[] columnIndex;

    private volatile List<dev.loam.core.arrow.ArrowCodec.FrameColumns> columns;

    SegmentIndex(String key, SegmentReader.SegmentTail tail, int blockBytes) {
      this(key, tail.batches(), tail.seal(), tail.columnIndex(), blockBytes);
    }

    SegmentIndex(String key, List<SegmentBatch> batches, int blockBytes) {
      this(key, batches, null, new byte[0], blockBytes);
    }

    SegmentIndex(
        String key,
        List<SegmentBatch> batches,
        SealedSegment.Seal seal,
        byte[] columnIndex,
        int blockBytes) {
      this.key = key;
      this.seal = seal;
      this.sealedBatches = seal == null ? null : List.copyOf(batches);
      this.columnIndex = columnIndex;
      int n = batches.size();
      baseOffsets = new long[n + 1];
      positions = new long[n + 1];
      maxTimestamps = new long[n];
      int[] starts = new int[n];
      int blocks = 0;
      long blockStartPos = -1;
      for (int i = 0; i < n; i++) {
        SegmentBatch b = batches.get(i);
        baseOffsets[i] = b.baseOffset();
        positions[i] = b.position();
        maxTimestamps[i] = b.maxTimestamp();
        if (blocks == 0 || b.position() + b.length() - blockStartPos > blockBytes) {
          starts[blocks++] = i;
          blockStartPos = b.position();
        }
      }
      SegmentBatch last = batches.get(n - 1);
      baseOffsets[n] = last.endOffset();
      positions[n] = last.position() + last.length();
      blockStarts = Arrays.copyOf(starts, blocks);
    }

    int count() {
      return maxTimestamps.length;
    }

    /**
     * The parsed column index of an arrow segment, one entry per batch, parsed on first use.
     *
     * @throws CorruptionException if the segment has none or it is damaged
     */
    List<dev.loam.core.arrow.ArrowCodec.FrameColumns> columns() {
      List<dev.loam.core.arrow.ArrowCodec.FrameColumns> c = columns;
      if (c == null) {
        if (columnIndex.length == 0) {
          throw new CorruptionException(
              "segment has no column index (not an arrow segment) key=" + key);
        }
        try {
          c =
              dev.loam.core.arrow.ArrowCodec.get()
                  .parseColumnIndex(java.nio.ByteBuffer.wrap(columnIndex), count());
        } catch (CorruptionException e) {
          throw new CorruptionException(e.getMessage() + " key=" + key, e);
        }
        columns = c;
      }
      return c;
    }

    long weight() {
      // The column index is kept raw and, once used, parsed (about twice its bytes).
      return 96L
          + key.length() * 2L
          + 28L * count()
          + 4L * blockStarts.length
          + (seal == null ? 0 : 64L * count() + seal.bytes().length)
          + 3L * columnIndex.length;
    }

    /** The batch starting at byte {@code position}, {@link #count()} for the data end, or -1. */
    int batchAtPosition(long position) {
      int i = Arrays.binarySearch(positions, position);
      return i >= 0 ? i : -1;
    }

    /** The batch holding {@code offset}; callers keep it inside the segment. */
    int batchOfOffset(long offset) {
      int i = Arrays.binarySearch(baseOffsets, offset);
      return i >= 0 ? i : -i - 2;
    }

    /** The block holding batch {@code batch}. */
    int blockOf(int batch) {
      int i = Arrays.binarySearch(blockStarts, batch);
      return i >= 0 ? i : -i - 2;
    }

    /** The first batch after block {@code block}. */
    int blockEnd(int block) {
      return block + 1 < blockStarts.length ? blockStarts[block + 1] : count();
    }
  }
}
