package dev.loam.core.read;

import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.core.ObjectLayout;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.segment.SealedSegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Loads the records of offset-index entries (stream-engine.txt §6 step 2), tier by tier: the
 * in-memory tail cache, then the local disk cache (when configured), then a ranged GET of the bytes
 * in their WAL object or segment (segments keep the batches verbatim, so both decode the same way).
 *
 * <p>Units read: a WAL entry, or a segment entry up to {@code blockBytes}, is read whole. A larger
 * segment entry (the segmenter makes one entry per segment) is read by <b>blocks</b>: the segment's
 * batch index (footer, {@link SegmentIndexCache}) locates the batch holding the fetch offset, and
 * the read covers the blocks (runs of batches of at most {@code blockBytes}, the same for every
 * reader) from that batch's block until {@code maxBytes}, one GET per block, all in parallel. Fixed
 * block boundaries let concurrent consumers and the disk cache share reads at different offsets.
 *
 * <p>Sharing: concurrent loads of the same range, or of a range inside one already being loaded,
 * share one disk read and one GET ({@link GetCoalescer}); ranges of one WAL object asked for while
 * a GET of it is in flight go out together in one covering GET ({@link WalGetMerger}). Bytes
 * fetched from the store are then written to the disk cache. Every batch is checked (length, magic,
 * CRC32C) and the record count must match the index, so corrupted bytes fail with a {@link
 * CorruptionException} naming the object instead of being served. Offsets come from the offset
 * index entry (and, inside a segment entry, from the segment's CRC-checked batch index, which must
 * agree with the entry at its ends), never from the stored batch's own baseOffset field.
 */
public final class ReadPath {
  /** Loads in flight shared by the coalescer at most; beyond it, readers load alone. */
  static final int MAX_COALESCED_IN_FLIGHT = 4096;

  /** The read unit inside a large segment entry. */
  static final int BLOCK_BYTES = 1 << 20;

  /** Memory for parsed segment batch indexes (about 28 bytes a batch). */
  public static final long SEGMENT_INDEX_CACHE_BYTES = 32L << 20;

  /** The largest merged GET of one WAL object (the default WAL object size). */
  static final int WAL_MERGE_MAX_SPAN = 8 << 20;

  /**
   * The node's gather window for WAL GETs: small next to an object store's first-byte latency (tens
   * of ms), long enough for consumers woken by the same GET to ask for their next ranges.
   */
  public static final long WAL_MERGE_WINDOW_MICROS = 2_000;

  /** The default memory for WAL objects read ahead ({@link WalReadAhead}). */
  static final long WAL_READ_AHEAD_BYTES = 64L << 20;

  private final ObjectStore store;
  private final TailCache tailCache;
  private final DiskCache diskCache;
  private final ReadCounters stats;
  private final GetCoalescer coalescer;
  private final TransientRetry retry;
  private final WalGetMerger walMerger;
  private final WalReadAhead readAhead;
  private final SegmentIndexCache segmentIndexes;
  private final int blockBytes;
  private final SealedChunkReader sealed;
  private final dev.loam.core.crypto.NamespaceEncryption encryption;

  /**
   * The bytes {@code [baseOffset, endOffset)} of {@code entry}: whole batches read from it, the
   * whole entry or some of its blocks.
   */
  public record Slice(IndexEntry entry, long baseOffset, long endOffset, byte[] bytes) {}

  public ReadPath(ObjectStore store, TailCache tailCache) {
    this(store, tailCache, null, new ReadCounters());
  }

  /**
   * @param diskCache the disk tier, or null when the node has none
   */
  public ReadPath(ObjectStore store, TailCache tailCache, DiskCache diskCache, ReadCounters stats) {
    this(store, tailCache, diskCache, stats, BLOCK_BYTES, SEGMENT_INDEX_CACHE_BYTES);
  }

  public ReadPath(
      ObjectStore store,
      TailCache tailCache,
      DiskCache diskCache,
      ReadCounters stats,
      int blockBytes,
      long segmentIndexCacheBytes) {
    this(store, tailCache, diskCache, stats, blockBytes, segmentIndexCacheBytes, null, 0, 0);
  }

  /**
   * @param delayer runs the WAL GET gather windows (the node's scheduler); null for no window
   * @param walWindowMicros the gather window of an idle WAL object's first range ({@link
   *     WalGetMerger})
   * @param walReadAheadBytes memory for whole WAL objects read ahead ({@link WalReadAhead}); 0 for
   *     no read-ahead (a WAL GET covers exactly the ranges asked for)
   */
  public ReadPath(
      ObjectStore store,
      TailCache tailCache,
      DiskCache diskCache,
      ReadCounters stats,
      int blockBytes,
      long segmentIndexCacheBytes,
      WalGetMerger.Delayer delayer,
      long walWindowMicros,
      long walReadAheadBytes) {
    this(
        store,
        tailCache,
        diskCache,
        stats,
        blockBytes,
        segmentIndexCacheBytes,
        delayer,
        walWindowMicros,
        walReadAheadBytes,
        null);
  }

  /**
   * As the constructor above, opening sealed WAL chunks with the keys {@code encryption} names
   * ({@link SealedChunkReader}); null for a node that reads plain chunks only.
   */
  public ReadPath(
      ObjectStore store,
      TailCache tailCache,
      DiskCache diskCache,
      ReadCounters stats,
      int blockBytes,
      long segmentIndexCacheBytes,
      WalGetMerger.Delayer delayer,
      long walWindowMicros,
      long walReadAheadBytes,
      dev.loam.core.crypto.NamespaceEncryption encryption) {
    this.sealed = encryption == null ? null : new SealedChunkReader(store, encryption);
    this.encryption = encryption;
    this.store = store;
    this.tailCache = tailCache;
    this.diskCache = diskCache;
    this.stats = stats;
    this.blockBytes = blockBytes;
    this.coalescer = new GetCoalescer(MAX_COALESCED_IN_FLIGHT, stats);
    this.retry = new TransientRetry(delayer, stats);
    this.readAhead = walReadAheadBytes > 0 ? new WalReadAhead(walReadAheadBytes, stats) : null;
    this.walMerger =
        new WalGetMerger(
            this::rawGet, stats, WAL_MERGE_MAX_SPAN, delayer, walWindowMicros, readAhead);
    this.segmentIndexes =
        new SegmentIndexCache(store, stats, segmentIndexCacheBytes, blockBytes, retry);
  }

  /**
   * The read block for segments of at most {@code segmentMaxBytes}: {@link #BLOCK_BYTES}, smaller
   * for small segments (at least 64 blocks a segment, at least 256 bytes) so that small test
   * settings exercise block reads too.
   */
  public static int blockBytes(long segmentMaxBytes) {
    return (int) Math.min(BLOCK_BYTES, Math.max(256, segmentMaxBytes / 64));
  }

  ReadCounters stats() {
    return stats;
  }

  /** Loads being shared now; for tests. */
  int inFlightLoads() {
    return coalescer.inFlight();
  }

  SegmentIndexCache segmentIndexes() {
    return segmentIndexes;
  }

  /** The WAL objects read ahead, or null when read-ahead is off; for tests. */
  WalReadAhead readAhead() {
    return readAhead;
  }

  /** Drops deleted objects from the read-ahead memory (GC's deletes). */
  public void invalidate(List<String> keys) {
    if (readAhead != null) {
      readAhead.invalidate(keys);
    }
    if (sealed != null) {
      sealed.invalidate(keys);
    }
  }

  /**
   * The bytes of one whole index entry: for an entry in a sealed WAL chunk, its plaintext (the tail
   * cache holds recent batches as plaintext, in memory only; every other tier holds the sealed
   * chunk, opened here).
   */
  public CompletableFuture<byte[]> load(IndexEntry e) {
    if (sealed != null && sealed.mayBeSealed(e)) {
      byte[] cached = tailCache.get(e.objectKey(), e.byteOffset(), e.byteLength());
      if (cached != null) {
        stats.tailHit();
        return CompletableFuture.completedFuture(cached);
      }
      return sealed.load(e, this::loadRange);
    }
    if (maySealSegment(e)) {
      return segmentIndexes
          .get(e.objectKey())
          .thenCompose(
              ix -> {
                CompletableFuture<byte[]> stored =
                    loadRange(e.objectKey(), e.byteOffset(), e.byteLength());
                if (ix.seal == null) {
                  return stored;
                }
                int[] r = batchRange(e, ix);
                return stored.thenCompose(b -> openSealed(ix, r[0], r[1] - r[0], b));
              });
    }
    return loadRange(e.objectKey(), e.byteOffset(), e.byteLength());
  }

  /**
   * Whether segment entry {@code e} may be sealed (segment-v2.md): while some namespace has a key,
   * a segment entry is read through the segment's batch index, which says so. A cluster that never
   * encrypted reads segments exactly as before.
   */
  private boolean maySealSegment(IndexEntry e) {
    return encryption != null
        && ObjectLayout.isSegment(e.objectKey())
        && encryption.anyNamespaceKeys();
  }

  /**
   * Opens the sealed batches {@code [first, first + count)} of a sealed segment from their stored
   * bytes, with the key its seal names: a {@link dev.loam.error.KeyDestroyedException} naming the
   * namespace once it is shredded. The bytes stay sealed in every tier; only the result is plain.
   */
  private CompletableFuture<byte[]> openSealed(
      SegmentIndexCache.SegmentIndex ix, int first, int count, byte[] stored) {
    if (encryption == null) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "sealed segment needs its namespace key but this node has no key management object="
                  + ix.key
                  + " keyId="
                  + ix.seal.keyId()));
    }
    return encryption
        .openingKey(ix.seal.keyId())
        .thenApply(
            kek ->
                SealedSegment.open(ix.key, ix.seal, kek, ix.sealedBatches, first, count, stored));
  }

  /**
   * The bytes of one whole index entry for the segmenter and the compactor: the tail cache, else
   * one GET of its own, neither shared with fetches nor written to the disk cache or the read-ahead
   * memory (the entry's object is about to be retired, its ranges would only push out ranges that
   * fetches still need). WAL bytes already read ahead are used, without marking them recently used.
   */
  public CompletableFuture<byte[]> loadForRewrite(IndexEntry e) {
    byte[] cached = tailCache.get(e.objectKey(), e.byteOffset(), e.byteLength());
    if (cached != null) {
      stats.tailHit();
      return CompletableFuture.completedFuture(cached);
    }
    if (sealed != null && sealed.mayBeSealed(e)) {
      // The whole sealed chunk with one GET of its own, opened here: the rewrite gets plaintext.
      return sealed.load(e, (k, o, l) -> checked(k, o, l, this::rawGet));
    }
    if (maySealSegment(e)) {
      return segmentIndexes
          .get(e.objectKey())
          .thenCompose(
              ix -> {
                CompletableFuture<byte[]> stored =
                    checked(e.objectKey(), e.byteOffset(), e.byteLength(), this::rawGet);
                if (ix.seal == null) {
                  return stored;
                }
                int[] r = batchRange(e, ix);
                return stored.thenCompose(b -> openSealed(ix, r[0], r[1] - r[0], b));
              });
    }
    if (readAhead != null) {
      byte[] held = readAhead.get(e.objectKey(), e.byteOffset(), e.byteLength(), false);
      if (held != null) {
        stats.walReadAheadHit();
        return checked(
            e.objectKey(),
            e.byteOffset(),
            e.byteLength(),
            (k, o, l) -> CompletableFuture.completedFuture(held));
      }
    }
    return checked(e.objectKey(), e.byteOffset(), e.byteLength(), this::rawGet);
  }

  /** Whether a read of {@code e} goes through its segment's batch index (by blocks). */
  boolean readsByBlocks(IndexEntry e) {
    return ObjectLayout.isSegment(e.objectKey()) && e.byteLength() > blockBytes;
  }

  /**
   * Whole batches of {@code e} holding {@code fromOffset} (or the entry's first record, if before
   * it) and following records, about {@code maxBytes} or more: the whole entry, or for a large
   * segment entry the blocks from the one holding {@code fromOffset} until {@code maxBytes} (at
   * least one block).
   */
  public CompletableFuture<Slice> read(IndexEntry e, long fromOffset, int maxBytes) {
    if (!readsByBlocks(e)) {
      return load(e).thenApply(b -> new Slice(e, e.baseOffset(), e.endOffset(), b));
    }
    return segmentIndexes
        .get(e.objectKey())
        .thenCompose(ix -> readBlocks(e, ix, fromOffset, maxBytes));
  }

  /**
   * The offset of the first batch of {@code e} whose max timestamp is at or after {@code
   * timestampMillis}: from the segment's batch index for a large segment entry (no data read), else
   * the entry's base offset (the caller scans the entry). The entry's end offset if no batch is.
   */
  public CompletableFuture<Long> seekTimestamp(IndexEntry e, long timestampMillis) {
    if (!readsByBlocks(e)) {
      return CompletableFuture.completedFuture(e.baseOffset());
    }
    return segmentIndexes
        .get(e.objectKey())
        .thenApply(
            ix -> {
              int[] r = batchRange(e, ix);
              for (int i = r[0]; i < r[1]; i++) {
                if (ix.maxTimestamps[i] >= timestampMillis) {
                  return ix.baseOffsets[i];
                }
              }
              return e.endOffset();
            });
  }

  /** Batches {@code [first, end)} of the segment holding entry {@code e}, checked against it. */
  static int[] batchRange(IndexEntry e, SegmentIndexCache.SegmentIndex ix) {
    int first = ix.batchAtPosition(e.byteOffset());
    int end = ix.batchAtPosition(e.byteOffset() + e.byteLength());
    if (first < 0
        || end <= first
        || ix.baseOffsets[first] != e.baseOffset()
        || ix.baseOffsets[end] != e.endOffset()) {
      throw new CorruptionException(
          "segment batch index does not match the offset index entry object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset()
              + " byteLength="
              + e.byteLength()
              + " baseOffset="
              + e.baseOffset()
              + " endOffset="
              + e.endOffset()
              + " firstBatch="
              + first
              + " endBatch="
              + end);
    }
    return new int[] {first, end};
  }

  private CompletableFuture<Slice> readBlocks(
      IndexEntry e, SegmentIndexCache.SegmentIndex ix, long fromOffset, int maxBytes) {
    int[] r = batchRange(e, ix);
    long from = Math.min(Math.max(fromOffset, e.baseOffset()), e.endOffset() - 1);
    int batch = ix.batchOfOffset(from);
    int block = ix.blockOf(batch);
    int firstBatch = Math.max(ix.blockStarts[block], r[0]);
    List<CompletableFuture<byte[]>> parts = new ArrayList<>();
    long bytes = 0;
    int endBatch = firstBatch;
    while (endBatch < r[1] && (parts.isEmpty() || bytes < maxBytes)) {
      int blockEnd = Math.min(ix.blockEnd(ix.blockOf(endBatch)), r[1]);
      long pos = ix.positions[endBatch];
      int len = (int) (ix.positions[blockEnd] - pos);
      CompletableFuture<byte[]> part = loadRange(e.objectKey(), pos, len);
      if (ix.seal != null) {
        // The block stays sealed in the caches; only this read's copy is opened.
        int first = endBatch;
        int count = blockEnd - endBatch;
        part = part.thenCompose(b -> openSealed(ix, first, count, b));
      }
      parts.add(part);
      bytes += len;
      endBatch = blockEnd;
    }
    long base = ix.baseOffsets[firstBatch];
    long end = ix.baseOffsets[endBatch];
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            v -> {
              if (parts.size() == 1) {
                return new Slice(e, base, end, parts.get(0).join());
              }
              int total = 0;
              for (CompletableFuture<byte[]> p : parts) {
                total += p.join().length;
              }
              byte[] out = new byte[total];
              int at = 0;
              for (CompletableFuture<byte[]> p : parts) {
                byte[] b = p.join();
                System.arraycopy(b, 0, out, at, b.length);
                at += b.length;
              }
              return new Slice(e, base, end, out);
            });
  }

  /** The bytes {@code [offset, offset + length)} of an object, tier by tier. */
  CompletableFuture<byte[]> loadRange(String key, long offset, int length) {
    byte[] cached = tailCache.get(key, offset, length);
    if (cached != null) {
      stats.tailHit();
      return CompletableFuture.completedFuture(cached);
    }
    return coalescer.load(
        key,
        offset,
        length,
        () -> loadMiss(key, offset, length),
        bytes ->
            diskCache == null
                ? CompletableFuture.completedFuture(null)
                : diskCache.put(key, offset, bytes));
  }

  /** The disk tier, then the store. */
  private CompletableFuture<byte[]> loadMiss(String key, long offset, int length) {
    if (diskCache == null) {
      return getFromStore(key, offset, length);
    }
    return diskCache
        .get(key, offset, length)
        .thenCompose(
            b ->
                b != null
                    ? CompletableFuture.completedFuture(b)
                    : getFromStore(key, offset, length));
  }

  /** One GET to the store, counted. */
  private CompletableFuture<byte[]> rawGet(String key, long offset, int length) {
    return store
        .get(key, offset, length)
        .thenApply(
            b -> {
              stats.objectGet(b.length);
              return b;
            });
  }

  private CompletableFuture<byte[]> getFromStore(String key, long offset, int length) {
    WalGetMerger.Getter getter = ObjectLayout.isWal(key) ? walMerger::get : this::rawGet;
    return retry.run(() -> checked(key, offset, length, getter));
  }

  /**
   * A GET through {@code getter}, its length checked, a missing object as {@link
   * ObjectGoneException}.
   */
  private static CompletableFuture<byte[]> checked(
      String key, long offset, int length, WalGetMerger.Getter getter) {
    CompletableFuture<byte[]> got;
    try {
      got = getter.get(key, offset, length);
    } catch (RuntimeException e) {
      got = CompletableFuture.failedFuture(e);
    }
    return got.thenApply(
            b -> {
              if (b.length != length) {
                throw new CorruptionException(
                    "object shorter than its index entry expectedBytes="
                        + length
                        + " actualBytes="
                        + b.length
                        + " object="
                        + key
                        + " byteOffset="
                        + offset);
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
                    "object referenced by the offset index is missing object=" + key, c);
              }
              throw c instanceof RuntimeException re ? re : new CompletionException(c);
            });
  }

  /**
   * Decodes the records of a slice with offsets {@code >= fromOffset} into {@code out}.
   *
   * @return the number of batch bytes decoded
   */
  public static int decode(Slice s, int partition, long fromOffset, List<FetchedRecord> out) {
    return decode(s.entry(), s.baseOffset(), s.endOffset(), s.bytes(), partition, fromOffset, out);
  }

  /**
   * Decodes the entry's records with offsets {@code >= fromOffset} into {@code out}.
   *
   * @return the number of batch bytes decoded
   */
  public static int decode(
      IndexEntry e, byte[] bytes, int partition, long fromOffset, List<FetchedRecord> out) {
    return decode(e, e.baseOffset(), e.endOffset(), bytes, partition, fromOffset, out);
  }

  private static int decode(
      IndexEntry e,
      long baseOffset,
      long endOffset,
      byte[] bytes,
      int partition,
      long fromOffset,
      List<FetchedRecord> out) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long next = baseOffset;
    try {
      while (buf.hasRemaining()) {
        RecordBatch batch = RecordBatch.readFrom(buf);
        long base = next;
        // A batch covers lastOffsetDelta + 1 offsets: its record count for every batch as
        // appended, more when compaction removed records (docs/design/maintenance.md "Compacted
        // streams").
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
    if (next != endOffset) {
      throw new CorruptionException(
          "record count differs from the offset index expected="
              + (endOffset - baseOffset)
              + " actual="
              + (next - baseOffset)
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
    return bytes.length;
  }

  /**
   * Decodes the records of an arrow stream's slice (arrow batch frames back to back,
   * docs/formats/arrow-batch-v1.md) with offsets {@code >= fromOffset} into {@code out}; each
   * record's value is the JSON object of the newest schema version's fields.
   *
   * @return the number of frame bytes decoded
   */
  public static int decodeArrow(
      Slice s, int partition, long fromOffset, List<String> schemas, List<FetchedRecord> out) {
    IndexEntry e = s.entry();
    long next = s.baseOffset();
    try {
      for (List<dev.loam.wal.batch.RecordData> frame :
          dev.loam.core.arrow.ArrowCodec.get().decode(schemas, ByteBuffer.wrap(s.bytes()))) {
        long base = next;
        next += frame.size();
        if (next <= fromOffset) {
          continue;
        }
        for (int i = 0; i < frame.size(); i++) {
          long offset = base + i;
          if (offset >= fromOffset) {
            dev.loam.wal.batch.RecordData d = frame.get(i);
            out.add(
                new FetchedRecord(partition, offset, d.timestamp(), d.key(), d.value(), List.of()));
          }
        }
      }
    } catch (CorruptionException c) {
      throw new CorruptionException(
          c.getMessage() + " object=" + e.objectKey() + " byteOffset=" + e.byteOffset(), c);
    }
    if (next != s.endOffset()) {
      throw new CorruptionException(
          "record count differs from the offset index expected="
              + (s.endOffset() - s.baseOffset())
              + " actual="
              + (next - s.baseOffset())
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
    return s.bytes().length;
  }

  /**
   * Copies an arrow stream's slice's whole frames that hold offsets {@code >= fromOffset} into
   * {@code out}, each with its first record's offset patched into base_offset (outside the frame's
   * CRCs; the slice's shared bytes are never modified). Frames are located by their headers only:
   * the reader that decodes them checks their CRCs. The frames must cover the entry's offsets.
   *
   * @return the number of bytes copied
   */
  public static int copyArrowFrames(Slice s, long fromOffset, java.io.ByteArrayOutputStream out) {
    IndexEntry e = s.entry();
    ByteBuffer buf = ByteBuffer.wrap(s.bytes());
    long next = s.baseOffset();
    int copied = 0;
    while (buf.position() < buf.limit()) {
      int start = buf.position();
      if (buf.remaining() < 28) {
        throw new CorruptionException(
            "arrow frame truncated object=" + e.objectKey() + " byteOffset=" + e.byteOffset());
      }
      long length = Integer.toUnsignedLong(buf.getInt(start + 8));
      int count = buf.getInt(start + 24);
      if (length + 12 > buf.remaining() || count < 1) {
        throw new CorruptionException(
            "arrow frame length="
                + length
                + " record_count="
                + count
                + " do not fit the slice object="
                + e.objectKey()
                + " byteOffset="
                + e.byteOffset());
      }
      int size = (int) (length + 12);
      long base = next;
      next += count;
      buf.position(start + size);
      if (next <= fromOffset) {
        continue;
      }
      byte[] copy = java.util.Arrays.copyOfRange(s.bytes(), start, start + size);
      ByteBuffer.wrap(copy).putLong(0, base);
      out.write(copy, 0, size);
      copied += size;
    }
    if (next != s.endOffset()) {
      throw new CorruptionException(
          "record count differs from the offset index expected="
              + (s.endOffset() - s.baseOffset())
              + " actual="
              + (next - s.baseOffset())
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
    return copied;
  }

  /**
   * Copies the slice's whole batches that hold offsets {@code >= fromOffset} into {@code out}, each
   * with its assigned base offset patched into its first eight bytes (outside the batch CRC, so the
   * stored bytes stay valid; the slice's bytes, which caches share, are never modified). Checks
   * every batch's CRC and that the batches cover the entry's offsets, as {@link #decode} does.
   *
   * @return the number of bytes copied
   */
  public static int copyBatches(Slice s, long fromOffset, java.io.ByteArrayOutputStream out) {
    IndexEntry e = s.entry();
    ByteBuffer buf = ByteBuffer.wrap(s.bytes());
    long next = s.baseOffset();
    int copied = 0;
    try {
      while (buf.hasRemaining()) {
        int start = buf.position();
        RecordBatch batch = RecordBatch.readFrom(buf);
        long base = next;
        next += batch.lastOffsetDelta() + 1L;
        if (next <= fromOffset) {
          continue;
        }
        int size = buf.position() - start;
        byte[] copy = java.util.Arrays.copyOfRange(s.bytes(), start, start + size);
        ByteBuffer.wrap(copy).putLong(0, base);
        out.write(copy, 0, size);
        copied += size;
      }
    } catch (CorruptionException c) {
      throw new CorruptionException(
          c.getMessage() + " object=" + e.objectKey() + " byteOffset=" + e.byteOffset(), c);
    }
    if (next != s.endOffset()) {
      throw new CorruptionException(
          "record count differs from the offset index expected="
              + (s.endOffset() - s.baseOffset())
              + " actual="
              + (next - s.baseOffset())
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
    return copied;
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

  public static boolean isObjectGone(Throwable t) {
    while (t != null) {
      if (t instanceof ObjectGoneException) {
        return true;
      }
      t = t.getCause();
    }
    return false;
  }
}
