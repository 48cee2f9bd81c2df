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
 * Loads the records of offset-index entries (stream-engine.txt §6 step 2): from the tail cache,
 * else with one ranged GET of the entry's bytes in its WAL object or segment (segments keep the
 * batches verbatim, so both decode the same way). Every batch is checked (length, magic, CRC32C)
 * and the entry's record count must match, so corrupted bytes fail with a {@link
 * CorruptionException} naming the object instead of being served. Offsets come from the index
 * entry, never from the stored batch's own baseOffset field.
 */
final class ReadPath {
  private final ObjectStore store;
  private final TailCache tailCache;

  ReadPath(ObjectStore store, TailCache tailCache) {
    this.store = store;
    this.tailCache = tailCache;
  }

  /** The bytes of one index entry. */
  CompletableFuture<byte[]> load(IndexEntry e) {
    byte[] cached = tailCache.get(e.objectKey(), e.byteOffset(), e.byteLength());
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    return store
        .get(e.objectKey(), e.byteOffset(), e.byteLength())
        .thenApply(
            b -> {
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
        next += batch.recordCount();
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
