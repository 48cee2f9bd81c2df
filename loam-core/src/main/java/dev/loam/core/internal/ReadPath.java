package dev.loam.core.internal;

import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Loads the records of offset-index entries (stream-engine.txt §6 step 2), tier by tier: the
 * in-memory tail cache, then the local disk cache (when configured), then one ranged GET of the
 * entry's bytes in its WAL object or segment (segments keep the batches verbatim, so both decode
 * the same way). Concurrent loads of the same range, or of a range inside one already being loaded,
 * share one disk read and one GET ({@link GetCoalescer}); bytes fetched from the store are then
 * written to the disk cache. Every batch is checked (length, magic, CRC32C) and the entry's record
 * count must match, so corrupted bytes fail with a {@link CorruptionException} naming the object
 * instead of being served. Offsets come from the index entry, never from the stored batch's own
 * baseOffset field.
 */
final class ReadPath {
  /** Loads in flight shared by the coalescer at most; beyond it, readers load alone. */
  static final int MAX_COALESCED_IN_FLIGHT = 4096;

  private final ObjectStore store;
  private final TailCache tailCache;
  private final DiskCache diskCache;
  private final ReadStats stats;
  private final GetCoalescer coalescer;

  ReadPath(ObjectStore store, TailCache tailCache) {
    this(store, tailCache, null, new ReadStats());
  }

  /**
   * @param diskCache the disk tier, or null when the node has none
   */
  ReadPath(ObjectStore store, TailCache tailCache, DiskCache diskCache, ReadStats stats) {
    this.store = store;
    this.tailCache = tailCache;
    this.diskCache = diskCache;
    this.stats = stats;
    this.coalescer = new GetCoalescer(MAX_COALESCED_IN_FLIGHT, stats);
  }

  ReadStats stats() {
    return stats;
  }

  /** Loads being shared now; for tests. */
  int inFlightLoads() {
    return coalescer.inFlight();
  }

  /** The bytes of one index entry. */
  CompletableFuture<byte[]> load(IndexEntry e) {
    byte[] cached = tailCache.get(e.objectKey(), e.byteOffset(), e.byteLength());
    if (cached != null) {
      stats.tailHit();
      return CompletableFuture.completedFuture(cached);
    }
    return coalescer.load(
        e.objectKey(),
        e.byteOffset(),
        e.byteLength(),
        () -> loadMiss(e),
        bytes ->
            diskCache == null
                ? CompletableFuture.completedFuture(null)
                : diskCache.put(e.objectKey(), e.byteOffset(), bytes));
  }

  /** The disk tier, then the store. */
  private CompletableFuture<byte[]> loadMiss(IndexEntry e) {
    if (diskCache == null) {
      return getFromStore(e);
    }
    return diskCache
        .get(e.objectKey(), e.byteOffset(), e.byteLength())
        .thenCompose(b -> b != null ? CompletableFuture.completedFuture(b) : getFromStore(e));
  }

  private CompletableFuture<byte[]> getFromStore(IndexEntry e) {
    return store
        .get(e.objectKey(), e.byteOffset(), e.byteLength())
        .thenApply(
            b -> {
              stats.objectGet(b.length);
              if (b.length != e.byteLength()) {
                throw new CorruptionException(
                    "WAL object shorter than its index entry expectedBytes="
                        + e.byteLength()
                        + " actualBytes="
                        + b.length
                        + " object="
                        + e.objectKey()
                        + " byteOffset="
                        + e.byteOffset());
              }
              return b;
            })
        .exceptionally(
            t -> {
              Throwable c =
                  t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
              if (c instanceof LoamException le && le.kind() == Kind.NOT_FOUND) {
                // Either the entry was swapped or trimmed since it was read and GC deleted its
                // object (the caller retries from a fresh index view), or it is data loss.
                throw new ObjectGoneException(
                    "object referenced by the offset index is missing object=" + e.objectKey(), c);
              }
              throw c instanceof RuntimeException re ? re : new CompletionException(c);
            });
  }

  /**
   * Decodes the entry's records with offsets {@code >= fromOffset} into {@code out}.
   *
   * @return the number of batch bytes decoded
   */
  static int decode(
      IndexEntry e, byte[] bytes, int partition, long fromOffset, List<FetchedRecord> out) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long next = e.baseOffset();
    try {
      while (buf.hasRemaining()) {
        RecordBatch batch = RecordBatch.readFrom(buf);
        long base = next;
        // A batch covers lastOffsetDelta + 1 offsets: its record count for every batch as
        // appended, more when compaction removed records (segments-and-gc.md "Compacted streams").
        next += batch.lastOffsetDelta() + 1L;
        if (next <= fromOffset) {
          continue;
        }
        for (Record r : batch.records()) {
          long offset = base + (r.offset() - batch.baseOffset());
          if (offset >= fromOffset) {
            out.add(
                new FetchedRecord(
                    partition, offset, r.timestamp(), r.key(), r.value(), toApi(r.headers())));
          }
        }
      }
    } catch (CorruptionException c) {
      throw new CorruptionException(
          c.getMessage() + " object=" + e.objectKey() + " byteOffset=" + e.byteOffset(), c);
    }
    if (next != e.endOffset()) {
      throw new CorruptionException(
          "record count differs from the offset index expected="
              + e.recordCount()
              + " actual="
              + (next - e.baseOffset())
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
    return bytes.length;
  }

  private static List<Header> toApi(List<dev.loam.wal.batch.Header> hs) {
    if (hs.isEmpty()) {
      return List.of();
    }
    List<Header> out = new ArrayList<>(hs.size());
    for (dev.loam.wal.batch.Header h : hs) {
      out.add(new Header(h.key(), h.value()));
    }
    return out;
  }

  /**
   * An object named by an index entry is missing: INTERNAL (data loss) unless a fresh index view
   * shows the entry was replaced meanwhile (swap, trim, then GC), which the fetch path checks.
   */
  static final class ObjectGoneException extends LoamException {
    ObjectGoneException(String message, Throwable cause) {
      super(Kind.INTERNAL, message, cause);
    }
  }

  static boolean isObjectGone(Throwable t) {
    while (t != null) {
      if (t instanceof ObjectGoneException) {
        return true;
      }
      t = t.getCause();
    }
    return false;
  }
}
