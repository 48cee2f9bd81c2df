package dev.loam.core.maintain;

import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.arrow.ArrowCodec;
import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.ownership.OwnedPartitions;
import dev.loam.core.read.ReadPath;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.SwapSegment;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentBuilder;
import dev.loam.wal.ulid.Ulid;
import dev.loam.wal.ulid.UlidGenerator;
import java.nio.ByteBuffer;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites a partition's WAL-backed index entries into one segment (stream-engine.txt §5,
 * docs/design/maintenance.md). One {@link #poll()} makes at most one segment: it picks the first
 * partition with a run of WAL-backed entries of at least {@code thresholdBytes} (at most {@code
 * maxBytes}, the memory bound), reads the entries' bytes (tail cache or ranged GETs, one at a time,
 * not shared with fetches nor written to the disk cache), builds the segment with the batches
 * verbatim, creates it if absent at {@code seg/<stream>/<partition>/<base>-<ulid>.seg}, and
 * proposes a compare-and-swap {@link SwapSegment} replacing the run by one index entry covering the
 * whole segment (by default; entries of at most {@code entryMaxBytes} otherwise), so the metastore
 * holds about one entry per segment instead of one per WAL flush. Readers find batches inside that
 * entry with the segment's batch index. A crash or a refused swap leaves an unreferenced segment
 * that GC deletes as an orphan. The segments of a namespace with a key are sealed under its current
 * key (docs/formats/segment-v2.md); a node without key management leaves such namespaces' entries
 * in the WAL, and a shredded namespace is never rewritten. An arrow stream's run becomes an arrow
 * segment: its frames, verified and kept verbatim (base_offset patched), and a column index after
 * the batch index (docs/formats/arrow-batch-v1.md); arrow segments are never sealed, so the arrow
 * streams of a namespace with a key stay in the WAL. Not thread-safe: {@link Maintenance} runs one
 * poll at a time.
 */
public final class Segmenter {
  private static final Logger log = LoggerFactory.getLogger(Segmenter.class);

  /** Index entries examined per partition per poll: a bound on the work of one scan. */
  static final int MAX_SCAN_ENTRIES = 4096;

  private final String nodeId;
  private final NodeContext ctx;
  private final Metastore meta;
  private final ObjectStore store;
  private final ReadPath readPath;
  private final UlidGenerator ulids;
  private final InstantSource clock;
  private final long thresholdBytes;
  private final long maxBytes;
  private final int entryMaxBytes;
  private final NamespaceEncryption encryption;
  private final java.util.random.RandomGenerator keyRandom;
  private long segmentsMade;
  private long swapsRefused;

  public Segmenter(
      NodeContext ctx,
      ObjectStore store,
      ReadPath readPath,
      long thresholdBytes,
      long maxBytes,
      int entryMaxBytes) {
    this(ctx, store, readPath, thresholdBytes, maxBytes, entryMaxBytes, null, null);
  }

  /**
   * As above; {@code encryption} seals the segments of namespaces with a key (segment-v2.md), null
   * for a node without key management (it leaves those namespaces' entries in the WAL), drawing
   * data keys from {@code keyRandom}.
   */
  public Segmenter(
      NodeContext ctx,
      ObjectStore store,
      ReadPath readPath,
      long thresholdBytes,
      long maxBytes,
      int entryMaxBytes,
      NamespaceEncryption encryption,
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
    this.thresholdBytes = thresholdBytes;
    this.maxBytes = maxBytes;
    this.entryMaxBytes = entryMaxBytes;
  }

  /** {@code arrow}: an arrow stream's run, segmented as an arrow segment (arrow-batch-v1.md). */
  record Candidate(
      long streamId,
      int partition,
      List<IndexEntry> run,
      long streamEpoch,
      String namespace,
      boolean arrow) {}

  public static boolean isWal(IndexEntry e) {
    return ObjectLayout.isWal(e.objectKey());
  }

  /** The first partition with enough WAL-backed bytes in one run of entries, or null. */
  Candidate pick() {
    return meta.read(
        r -> {
          for (OwnedPartitions.Part part :
              OwnedPartitions.ownedPartitions(r, nodeId, ctx.epoch())) {
            if (!canSegment(r.namespaceKeys(part.stream().namespace()), encryption)) {
              continue;
            }
            long id = part.stream().id();
            int p = part.bounds().partition();
            boolean arrow = !r.streamSchemas(id).isEmpty();
            if (arrow && r.namespaceKeys(part.stream().namespace()).isPresent()) {
              // Arrow segments are never sealed: an encrypted namespace's frames stay in the WAL.
              continue;
            }
            if (arrow && !ArrowCodec.available()) {
              // Without loam-arrow this node cannot verify the frames nor build the column index:
              // the frames stay in the WAL objects, which retention trims as usual.
              continue;
            }
            List<IndexEntry> es =
                r.indexEntries(id, p, part.bounds().logStartOffset(), MAX_SCAN_ENTRIES);
            int i = 0;
            while (i < es.size()) {
              while (i < es.size() && !isWal(es.get(i))) {
                i++;
              }
              List<IndexEntry> run = new ArrayList<>();
              long bytes = 0;
              while (i < es.size()
                  && isWal(es.get(i))
                  && (run.isEmpty() || bytes + es.get(i).byteLength() <= maxBytes)) {
                bytes += es.get(i).byteLength();
                run.add(es.get(i));
                i++;
              }
              if (bytes >= thresholdBytes) {
                return new Candidate(
                    id, p, run, part.streamEpoch(), part.stream().namespace(), arrow);
              }
            }
          }
          return null;
        });
  }

  /** Makes at most one segment; completes with whether a swap was applied. Never fails. */
  CompletableFuture<Boolean> poll() {
    Candidate c;
    try {
      c = pick();
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(false);
    }
    if (c == null) {
      return CompletableFuture.completedFuture(false);
    }
    long base = c.run().get(0).baseOffset();
    SegmentBuilder b =
        c.arrow()
            ? SegmentBuilder.arrow(c.streamId(), c.partition(), base)
            : new SegmentBuilder(c.streamId(), c.partition(), base);
    long now = clock.millis();
    Ulid ulid = ulids.next(now);
    String key =
        ObjectLayout.segmentKey(ctx.clusterId(), c.streamId(), c.partition(), b.nextOffset(), ulid);
    return addAll(b, c, 0)
        .thenCompose(
            v ->
                c.arrow()
                    ? CompletableFuture.completedFuture(
                        b.build(ArrowCodec.get().columnIndex(b.dataRegion())))
                    : build(b, key, c.namespace(), encryption, keyRandom))
        .thenCompose(seg -> write(c, seg, ulid, key))
        .exceptionally(
            t -> {
              log.warn("segmenting failed stream={} partition={}", c.streamId(), c.partition(), t);
              return false;
            });
  }

  private CompletableFuture<Void> addAll(SegmentBuilder b, Candidate c, int i) {
    List<IndexEntry> run = c.run();
    if (i >= run.size()) {
      return CompletableFuture.completedFuture(null);
    }
    IndexEntry e = run.get(i);
    return readPath
        .loadForRewrite(e)
        .thenCompose(
            bytes -> {
              if (c.arrow()) {
                // Every frame is verified (header and column CRCs) before it is copied: a segment
                // never carries a damaged frame out of the WAL.
                List<SegmentBuilder.Frame> frames = new ArrayList<>();
                for (ArrowCodec.FrameSummary f : ArrowCodec.get().frames(ByteBuffer.wrap(bytes))) {
                  frames.add(new SegmentBuilder.Frame(f.size(), f.recordCount(), f.maxTimestamp()));
                }
                b.addFrames(e.baseOffset(), bytes, frames);
              } else {
                b.addEntry(e.baseOffset(), bytes);
              }
              return addAll(b, c, i + 1);
            });
  }

  /**
   * Whether a partition of a namespace with {@code keys} can be segmented or compacted: always when
   * it has none; with keys, only by a node with key management (it seals the segment) and while
   * they are not destroyed (a shredded namespace's data is never rewritten: GC collects it).
   */
  public static boolean canSegment(
      java.util.Optional<dev.loam.meta.command.NamespaceKeys> keys,
      NamespaceEncryption encryption) {
    if (keys.isEmpty()) {
      return true;
    }
    return encryption != null && encryption.hasKms() && !keys.get().destroyed();
  }

  /**
   * The segment {@code b} holds, to be stored at {@code key}: sealed under the namespace's current
   * key when it has one (segment-v2.md), its data key drawn from {@code keyRandom}; plain
   * otherwise.
   */
  public static CompletableFuture<Segment> build(
      SegmentBuilder b,
      String key,
      String namespace,
      NamespaceEncryption encryption,
      java.util.random.RandomGenerator keyRandom) {
    if (encryption == null) {
      return CompletableFuture.completedFuture(b.build());
    }
    return encryption
        .sealingKey(namespace)
        .thenApply(kek -> kek == null ? b.build() : b.buildSealed(key, kek, keyRandom));
  }

  private CompletableFuture<Boolean> write(Candidate c, Segment seg, Ulid ulid, String key) {
    long now = clock.millis();
    List<SwapSegment.SegmentEntry> entries = group(seg.batches(), entryMaxBytes);
    long from = c.run().get(0).baseOffset();
    long to = c.run().get(c.run().size() - 1).endOffset();
    SwapSegment swap =
        new SwapSegment(
            ctx.origin(now),
            c.streamId(),
            c.partition(),
            from,
            to,
            c.run(),
            key,
            ulid.timestampMillis(),
            seg.size(),
            entries);
    return store
        .create(key, seg.bytes())
        .thenCompose(v -> meta.propose(new OwnerFenced(c.streamId(), c.streamEpoch(), swap)))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.SegmentSwapped) {
                segmentsMade++;
                return true;
              }
              // Refused (the entries changed, a newer epoch): the segment stays unreferenced and
              // GC deletes it as an orphan.
              swapsRefused++;
              log.debug("segment swap refused segment={} outcome={}", key, a.outcome());
              return false;
            });
  }

  /**
   * Groups consecutive batches into index entries of at most {@code maxBytes} bytes (at least one
   * batch each) and at most {@link Integer#MAX_VALUE} records: with {@code maxBytes} at least the
   * segment's data, one entry.
   */
  public static List<SwapSegment.SegmentEntry> group(List<SegmentBatch> batches, int maxBytes) {
    List<SwapSegment.SegmentEntry> out = new ArrayList<>();
    int i = 0;
    while (i < batches.size()) {
      SegmentBatch first = batches.get(i);
      long bytes = 0;
      long records = 0;
      long maxTs = Long.MIN_VALUE;
      int j = i;
      while (j < batches.size()
          && (j == i || bytes + batches.get(j).length() <= maxBytes)
          && records + batches.get(j).recordCount() <= Integer.MAX_VALUE) {
        bytes += batches.get(j).length();
        records += batches.get(j).recordCount();
        maxTs = Math.max(maxTs, batches.get(j).maxTimestamp());
        j++;
      }
      out.add(new SwapSegment.SegmentEntry((int) records, first.position(), (int) bytes, maxTs));
      i = j;
    }
    return out;
  }

  long segmentsMade() {
    return segmentsMade;
  }

  long swapsRefused() {
    return swapsRefused;
  }
}
