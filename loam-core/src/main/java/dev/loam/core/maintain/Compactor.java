package dev.loam.core.maintain;

import dev.loam.api.CompactionSettings;
import dev.loam.core.ChangelogLinks;
import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.ownership.OwnedPartitions;
import dev.loam.core.read.ReadPath;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.SwapSegment;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.batch.CompactedBatchEncoder;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.Header;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.TimestampType;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBuilder;
import dev.loam.wal.ulid.Ulid;
import dev.loam.wal.ulid.UlidGenerator;
import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts the partitions of compacted streams this node owns (stream-engine.txt §5 "Compacted
 * streams"; the rules are in docs/design/maintenance.md): keeps the latest record per key in the
 * segmented prefix of the log, keeps keyless records, removes tombstones once their delete horizon
 * has passed, and never changes an offset. Kept records are re-encoded into batches that tile the
 * offsets, written as compacted segments ({@code seg/<stream>/<partition>/<base>-<ulid>.cseg}) and
 * made real by the same owner-fenced compare-and-swap of index entries as the segmenter, chunk by
 * chunk in offset order; a crash or a refused swap leaves an orphan for GC. Memory: one {@link
 * OffsetMap} of at most {@code mapBytes}, and one chunk of at most {@code chunkMaxBytes} source
 * bytes. Not thread-safe: {@link Maintenance} runs one poll at a time.
 */
public final class Compactor {
  private static final Logger log = LoggerFactory.getLogger(Compactor.class);

  /** Index entries examined per partition per poll. */
  static final int MAX_SCAN_ENTRIES = 100_000;

  /** Offsets one chunk spans at most, so every batch's lastOffsetDelta fits an i32. */
  static final long MAX_CHUNK_SPAN = 1L << 30;

  /** The suffix of compacted segment objects: what marks an index entry as already compacted. */
  private final String nodeId;

  private final NodeContext ctx;
  private final Metastore meta;
  private final ObjectStore store;
  private final ReadPath readPath;
  private final UlidGenerator ulids;
  private final InstantSource clock;
  private final CompactionSettings settings;
  private final long chunkMaxBytes;
  private final int entryMaxBytes;
  private final dev.loam.core.crypto.NamespaceEncryption encryption;
  private final java.util.random.RandomGenerator keyRandom;

  /** What this node learned about each partition it compacted (lost on restart, on purpose). */
  private final Map<PartKey, PartState> states = new ConcurrentHashMap<>();

  private long passes;
  private long chunksSwapped;
  private long swapsRefused;
  private long recordsRemoved;
  private long tombstonesRemoved;

  public Compactor(
      NodeContext ctx,
      ObjectStore store,
      ReadPath readPath,
      CompactionSettings settings,
      long chunkMaxBytes,
      int entryMaxBytes) {
    this(ctx, store, readPath, settings, chunkMaxBytes, entryMaxBytes, null, null);
  }

  /**
   * As above; {@code encryption} opens and seals the segments of namespaces with a key
   * (segment-v2.md), null for a node without key management (it leaves those namespaces alone).
   */
  public Compactor(
      NodeContext ctx,
      ObjectStore store,
      ReadPath readPath,
      CompactionSettings settings,
      long chunkMaxBytes,
      int entryMaxBytes,
      dev.loam.core.crypto.NamespaceEncryption encryption,
      java.util.random.RandomGenerator keyRandom) {
    this.encryption = encryption;
    this.keyRandom = keyRandom;
    this.ctx = ctx;
    this.nodeId = ctx.nodeId();
    this.meta = ctx.meta();
    this.store = store;
    this.readPath = readPath;
    this.ulids = ctx.ulids();
    this.clock = ctx.clock();
    this.settings = settings;
    this.chunkMaxBytes = chunkMaxBytes;
    this.entryMaxBytes = entryMaxBytes;
  }

  record PartKey(long streamId, int partition, long streamEpoch) {}

  /**
   * @param nextHorizonCheck the metastore time from which the clean part may hold a tombstone due
   *     for removal
   * @param moreDirty the last pass covered only part of the dirty entries (its map was full)
   */
  record PartState(long nextHorizonCheck, boolean moreDirty) {}

  /** One partition to compact: its clean and dirty entries as read in one view. */
  record Plan(
      PartKey key,
      List<IndexEntry> clean,
      List<IndexEntry> dirty,
      long metaClock,
      String namespace) {}

  public static boolean isCompacted(IndexEntry e) {
    return ObjectLayout.isCompactedSegment(e.objectKey());
  }

  /** The partitions due now, at most {@code maxPartitionsPerPass}. */
  List<Plan> pick() {
    long retention = settings.tombstoneRetention().toMillis();
    return meta.read(
        r -> {
          long metaClock = r.clockMillis();
          List<Plan> plans = new ArrayList<>();
          Set<PartKey> seen = new HashSet<>();
          for (OwnedPartitions.Part part :
              OwnedPartitions.ownedPartitions(r, nodeId, ctx.epoch())) {
            if (part.stream().config().cleanupPolicy() != StreamConfig.CleanupPolicy.COMPACT
                || !Segmenter.canSegment(r.namespaceKeys(part.stream().namespace()), encryption)) {
              continue;
            }
            long id = part.stream().id();
            int p = part.bounds().partition();
            PartKey key = new PartKey(id, p, part.streamEpoch());
            seen.add(key);
            if (plans.size() >= settings.maxPartitionsPerPass()) {
              continue;
            }
            List<IndexEntry> es =
                r.indexEntries(id, p, part.bounds().logStartOffset(), MAX_SCAN_ENTRIES);
            // The segmented prefix, never the newest entry (the active tail).
            int n = 0;
            while (n < es.size() - 1 && !Segmenter.isWal(es.get(n))) {
              n++;
            }
            // Nothing a changelog of this stream still needs (its before-images, the records its
            // state is rebuilt from) is compacted: only entries wholly below that offset
            // (docs/design/changelog.md "Compaction and before-images").
            long needed = ChangelogLinks.neededFrom(r, part.stream(), p);
            while (n > 0 && es.get(n - 1).endOffset() > needed) {
              n--;
            }
            int c = 0;
            while (c < n && isCompacted(es.get(c))) {
              c++;
            }
            List<IndexEntry> clean = es.subList(0, c);
            List<IndexEntry> dirty = es.subList(c, n);
            long cleanBytes = bytes(clean);
            long dirtyBytes = bytes(dirty);
            PartState st =
                states.computeIfAbsent(key, k -> new PartState(metaClock + retention, false));
            boolean due =
                !dirty.isEmpty() && (dirtyBytes * 2 >= cleanBytes + dirtyBytes || st.moreDirty());
            due |= !clean.isEmpty() && metaClock >= st.nextHorizonCheck();
            if (due) {
              plans.add(
                  new Plan(
                      key,
                      List.copyOf(clean),
                      List.copyOf(dirty),
                      metaClock,
                      part.stream().namespace()));
            }
          }
          states.keySet().retainAll(seen);
          return plans;
        });
  }

  private static long bytes(List<IndexEntry> es) {
    long b = 0;
    for (IndexEntry e : es) {
      b += e.byteLength();
    }
    return b;
  }

  /** Compacts every partition due; completes with how many were fully compacted. Never fails. */
  CompletableFuture<Integer> poll() {
    List<Plan> plans;
    try {
      plans = pick();
    } catch (RuntimeException e) {
      log.warn("compaction scan failed", e);
      return CompletableFuture.completedFuture(0);
    }
    return runAll(plans, 0, 0);
  }

  private CompletableFuture<Integer> runAll(List<Plan> plans, int i, int done) {
    if (i >= plans.size()) {
      return CompletableFuture.completedFuture(done);
    }
    Plan pl = plans.get(i);
    CompletableFuture<Boolean> f;
    try {
      f = compact(pl);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    return f.handle(
            (ok, t) -> {
              if (t != null) {
                log.warn(
                    "compaction failed stream={} partition={}",
                    pl.key().streamId(),
                    pl.key().partition(),
                    t);
                return 0;
              }
              return ok ? 1 : 0;
            })
        .thenCompose(n -> runAll(plans, i + 1, done + n));
  }

  /** One pass over one partition; completes with whether every chunk was swapped. */
  CompletableFuture<Boolean> compact(Plan pl) {
    passes++;
    long expectedKeys = 0;
    for (IndexEntry e : pl.dirty()) {
      expectedKeys += e.recordCount();
    }
    OffsetMap map = new OffsetMap(settings.mapBytes(), expectedKeys);
    return buildMap(pl, map, 0)
        .thenCompose(
            dirtyEnd -> {
              List<IndexEntry> range = new ArrayList<>(pl.clean());
              range.addAll(pl.dirty().subList(0, dirtyEnd));
              if (range.isEmpty()) {
                return CompletableFuture.completedFuture(false);
              }
              Pass pass = new Pass(pl, map);
              return rewrite(pass, range, 0)
                  .thenApply(
                      ok -> {
                        if (ok) {
                          states.put(
                              pl.key(),
                              new PartState(pass.minKeptHorizon, dirtyEnd < pl.dirty().size()));
                        }
                        return ok;
                      });
            });
  }

  /**
   * Puts the dirty entries' keys into the map while whole entries fit; completes with how many did.
   * An entry's keyed records are counted before any is put, so the map never holds part of one.
   */
  private CompletableFuture<Integer> buildMap(Plan pl, OffsetMap map, int i) {
    if (i >= pl.dirty().size()) {
      return CompletableFuture.completedFuture(i);
    }
    IndexEntry e = pl.dirty().get(i);
    return readPath
        .loadForRewrite(e)
        .thenCompose(
            bytes -> {
              List<byte[]> keys = new ArrayList<>();
              List<Long> offsets = new ArrayList<>();
              forEachRecord(
                  e,
                  bytes,
                  (batch, rec, offset) -> {
                    if (rec.key() != null) {
                      keys.add(rec.key());
                      offsets.add(offset);
                    }
                  });
              if ((long) map.size() + keys.size() > map.maxEntries()) {
                if (i == 0) {
                  throw new LoamException(
                      Kind.INVALID,
                      "compaction map too small for one index entry mapBytes="
                          + settings.mapBytes()
                          + " maxKeys="
                          + map.maxEntries()
                          + " entryKeyedRecords="
                          + keys.size()
                          + " stream="
                          + pl.key().streamId()
                          + " partition="
                          + pl.key().partition());
                }
                return CompletableFuture.completedFuture(i);
              }
              for (int j = 0; j < keys.size(); j++) {
                map.put(keys.get(j), offsets.get(j));
              }
              return buildMap(pl, map, i + 1);
            });
  }

  /** A record of an entry with its real offset and its batch. */
  interface RecordVisitor {
    void visit(RecordBatch batch, Record record, long offset);
  }

  /**
   * Visits every record of an entry's batches with offsets from the index entry (each batch spans
   * {@code lastOffsetDelta + 1} offsets), checking the spans add up to the entry.
   */
  static void forEachRecord(IndexEntry e, byte[] bytes, RecordVisitor v) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    long next = e.baseOffset();
    try {
      while (buf.hasRemaining()) {
        RecordBatch b = RecordBatch.readFrom(buf);
        if (b.isTransactional() || b.isControl()) {
          throw new LoamException(
              Kind.INVALID,
              "compaction of transactional or control batches is not supported object="
                  + e.objectKey()
                  + " offset="
                  + next);
        }
        long base = next;
        next += b.lastOffsetDelta() + 1L;
        for (Record r : b.records()) {
          v.visit(b, r, base + (r.offset() - b.baseOffset()));
        }
      }
    } catch (CorruptionException c) {
      throw new CorruptionException(
          c.getMessage() + " object=" + e.objectKey() + " byteOffset=" + e.byteOffset(), c);
    }
    if (next != e.endOffset()) {
      throw new CorruptionException(
          "offset span differs from the offset index expected="
              + e.recordCount()
              + " actual="
              + (next - e.baseOffset())
              + " object="
              + e.objectKey()
              + " byteOffset="
              + e.byteOffset());
    }
  }

  /** The state of one pass over one partition. */
  private final class Pass {
    final Plan plan;
    final OffsetMap map;
    final long newHorizon;
    long minKeptHorizon = Long.MAX_VALUE;

    Pass(Plan plan, OffsetMap map) {
      this.plan = plan;
      this.map = map;
      this.newHorizon = plan.metaClock() + settings.tombstoneRetention().toMillis();
    }
  }

  /** Rewrites {@code range} from entry {@code start} on, chunk by chunk, in offset order. */
  private CompletableFuture<Boolean> rewrite(Pass pass, List<IndexEntry> range, int start) {
    if (start >= range.size()) {
      return CompletableFuture.completedFuture(true);
    }
    int end = start;
    long srcBytes = 0;
    long span = 0;
    while (end < range.size()
        && (end == start
            || (srcBytes + range.get(end).byteLength() <= chunkMaxBytes
                && span + range.get(end).recordCount() <= MAX_CHUNK_SPAN))) {
      srcBytes += range.get(end).byteLength();
      span += range.get(end).recordCount();
      end++;
    }
    List<IndexEntry> chunk = range.subList(start, end);
    long from = chunk.get(0).baseOffset();
    long to = chunk.get(chunk.size() - 1).endOffset();
    PartKey k = pass.plan.key();
    SegmentBuilder b = new SegmentBuilder(k.streamId(), k.partition(), from, true);
    Rebatcher rb = new Rebatcher(b, from, entryMaxBytes);
    int next = end;
    return filterAll(pass, chunk, 0, rb)
        .thenCompose(
            v -> {
              rb.finish(to);
              Ulid ulid = ulids.next(clock.millis());
              String key =
                  ObjectLayout.compactedSegmentKey(
                      ctx.clusterId(), k.streamId(), k.partition(), from, ulid);
              return Segmenter.build(b, key, pass.plan.namespace(), encryption, keyRandom)
                  .thenCompose(seg -> swap(pass, chunk, from, to, seg, ulid, key));
            })
        .thenCompose(
            ok -> ok ? rewrite(pass, range, next) : CompletableFuture.completedFuture(false));
  }

  private CompletableFuture<Void> filterAll(
      Pass pass, List<IndexEntry> chunk, int i, Rebatcher rb) {
    if (i >= chunk.size()) {
      return CompletableFuture.completedFuture(null);
    }
    IndexEntry e = chunk.get(i);
    return readPath
        .loadForRewrite(e)
        .thenCompose(
            bytes -> {
              filter(pass, e, bytes, rb);
              return filterAll(pass, chunk, i + 1, rb);
            });
  }

  /** Applies the rules (docs/design/maintenance.md "The rules") to one entry's records. */
  private void filter(Pass pass, IndexEntry e, byte[] bytes, Rebatcher rb) {
    boolean trustHorizon = isCompacted(e);
    long metaClock = pass.plan.metaClock();
    forEachRecord(
        e,
        bytes,
        (batch, rec, offset) -> {
          long horizon = -1;
          if (rec.key() != null) {
            if (pass.map.get(rec.key()) > offset) {
              recordsRemoved++;
              return;
            }
            if (rec.value() == null) {
              long had = trustHorizon ? CompactedBatchEncoder.deleteHorizon(batch) : -1;
              if (had >= 0 && metaClock >= had) {
                tombstonesRemoved++;
                return;
              }
              horizon = had >= 0 ? had : pass.newHorizon;
              pass.minKeptHorizon = Math.min(pass.minKeptHorizon, horizon);
            }
          }
          rb.add(
              new Record(offset, rec.timestamp(), rec.key(), rec.value(), rec.headers()),
              batch.compression(),
              batch.timestampType(),
              horizon);
        });
  }

  private CompletableFuture<Boolean> swap(
      Pass pass, List<IndexEntry> chunk, long from, long to, Segment seg, Ulid ulid, String key) {
    PartKey k = pass.plan.key();
    long now = clock.millis();
    SwapSegment swap =
        new SwapSegment(
            ctx.origin(now),
            k.streamId(),
            k.partition(),
            from,
            to,
            chunk,
            key,
            ulid.timestampMillis(),
            seg.size(),
            Segmenter.group(seg.batches(), entryMaxBytes));
    return store
        .create(key, seg.bytes())
        .thenCompose(v -> meta.propose(new OwnerFenced(k.streamId(), k.streamEpoch(), swap)))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.SegmentSwapped) {
                chunksSwapped++;
                return true;
              }
              // Refused (entries changed, a newer stream epoch): the segment is an orphan for GC,
              // and the pass stops so no later chunk drops a tombstone before its older records.
              swapsRefused++;
              log.debug("compaction swap refused segment={} outcome={}", key, a.outcome());
              return false;
            });
  }

  /**
   * Groups kept records into batches that tile a chunk's offsets: each batch spans from its base to
   * the next batch's first record (the last to the chunk end), so removed offsets fold into the
   * preceding batch; a chunk with no record left becomes one empty batch. A new batch starts when
   * the codec or timestamp type changes, when LOG_APPEND_TIME records differ in time, when
   * tombstones carry another delete horizon, or at {@code maxBatchBytes} of records.
   */
  static final class Rebatcher {
    private final SegmentBuilder out;
    private final long chunkFrom;
    private final int maxBatchBytes;
    private List<Record> recs;
    private long base;
    private Compression compression;
    private TimestampType type;
    private long horizon;
    private long bytes;

    Rebatcher(SegmentBuilder out, long chunkFrom, int maxBatchBytes) {
      this.out = out;
      this.chunkFrom = chunkFrom;
      this.maxBatchBytes = maxBatchBytes;
    }

    void add(Record r, Compression c, TimestampType t, long tombstoneHorizon) {
      long size = 24L + len(r.key()) + len(r.value());
      for (Header h : r.headers()) {
        size += 8 + h.key().length() + len(h.value());
      }
      if (recs == null) {
        start(chunkFrom, c, t);
      } else if (c != compression
          || t != type
          || (t == TimestampType.LOG_APPEND_TIME
              && r.timestamp() != recs.get(recs.size() - 1).timestamp())
          || (tombstoneHorizon >= 0 && horizon >= 0 && tombstoneHorizon != horizon)
          || bytes + size > maxBatchBytes) {
        flush(r.offset());
        start(r.offset(), c, t);
      }
      if (tombstoneHorizon >= 0) {
        horizon = tombstoneHorizon;
      }
      recs.add(r);
      bytes += size;
    }

    private static long len(byte[] b) {
      return b == null ? 0 : b.length;
    }

    private void start(long at, Compression c, TimestampType t) {
      recs = new ArrayList<>();
      base = at;
      compression = c;
      type = t;
      horizon = -1;
      bytes = 0;
    }

    private void flush(long end) {
      out.addEntry(
          base,
          CompactedBatchEncoder.encode(
              base, (int) (end - base - 1), compression, type, horizon, recs));
    }

    /** Closes the last batch at {@code chunkTo}. */
    void finish(long chunkTo) {
      if (recs == null) {
        out.addEntry(
            chunkFrom,
            CompactedBatchEncoder.encode(
                chunkFrom,
                (int) (chunkTo - chunkFrom - 1),
                Compression.NONE,
                TimestampType.CREATE_TIME,
                -1,
                List.of()));
      } else {
        flush(chunkTo);
      }
    }
  }

  long passes() {
    return passes;
  }

  long chunksSwapped() {
    return chunksSwapped;
  }

  long swapsRefused() {
    return swapsRefused;
  }

  long recordsRemoved() {
    return recordsRemoved;
  }

  long tombstonesRemoved() {
    return tombstonesRemoved;
  }
}
