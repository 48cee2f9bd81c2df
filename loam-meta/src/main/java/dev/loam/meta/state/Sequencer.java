package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.state.DedupeLedger.DedupeRecord;
import dev.loam.meta.state.PartitionState.ProducerState;
import dev.loam.meta.state.PartitionState.SeqEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The sequencer (stream-engine.txt §3 "Commit window" and "Sequencer"): the rule of CommitWal.
 * Dedupes a commit by its object key, refuses one older than the stale-commit window, checks its
 * structure, then per batch runs Kafka's idempotent-producer check and assigns offsets, appending
 * byte-adjacent accepted batches as one index entry. The dedupe records are its own ({@link
 * DedupeLedger}); the partitions are the {@link Catalog}'s, the references the {@link
 * ObjectLedger}'s, the writer leases of fenced batches the {@link WriterTable}'s.
 */
final class Sequencer {
  /** Smallest valid Kafka RecordBatch v2: its header without records (record-batch-v2.md). */
  static final int MIN_BATCH_BYTES = 61;

  private final Catalog catalog;
  private final ObjectLedger objects;
  private final DedupeLedger dedupe;
  private final WriterTable writers;
  private final long staleCommitMillis;
  private final int producerBatchesKept;

  Sequencer(
      MetaSettings settings,
      Catalog catalog,
      ObjectLedger objects,
      DedupeLedger dedupe,
      WriterTable writers) {
    this.catalog = catalog;
    this.objects = objects;
    this.dedupe = dedupe;
    this.writers = writers;
    this.staleCommitMillis = settings.staleCommitAfter().toMillis();
    this.producerBatchesKept = settings.producerBatchesKept();
  }

  /**
   * A group: each member exactly as its own CommitWal at this point, in order, after the group's
   * shape is checked (1 to {@link CommitWalGroup#MAX_MEMBERS} members, no object key twice).
   */
  Outcome commitWalGroup(CommitWalGroup g, long clockMillis) {
    int n = g.members().size();
    if (n < 1 || n > CommitWalGroup.MAX_MEMBERS) {
      return rejected(
          RejectReason.INVALID,
          "a commit group holds 1 to " + CommitWalGroup.MAX_MEMBERS + " objects members=" + n);
    }
    Set<String> keys = new HashSet<>();
    for (CommitWal m : g.members()) {
      if (!keys.add(m.objectKey())) {
        return rejected(
            RejectReason.INVALID, "a commit group names an object twice object=" + m.objectKey());
      }
    }
    List<Outcome> results = new ArrayList<>(n);
    for (CommitWal m : g.members()) {
      results.add(commitWal(m, clockMillis));
    }
    return new Outcome.WalGroupCommitted(results);
  }

  Outcome commitWal(CommitWal c, long clockMillis) {
    String key = c.objectKey();
    if (key == null || key.isEmpty()) {
      return rejected(RejectReason.INVALID, "commit names no object object=" + key);
    }
    // Dedupe by object path before anything else: a retry returns the first commit's offsets and
    // appends nothing, so a commit is never applied twice (§3, D27).
    DedupeRecord previous = dedupe.get(key);
    if (previous != null && !dedupe.expired(previous, clockMillis)) {
      return new Outcome.WalCommitted(true, previous.outcome().chunks());
    }
    // A commit older than the window is refused; since dedupe records live longer than the window
    // (MetaSettings enforces dedupeRetention >= staleCommitAfter), a retry whose record is gone
    // always lands here and is never appended a second time.
    if (c.objectTimeMillis() < clockMillis - staleCommitMillis) {
      return rejected(
          RejectReason.STALE_COMMIT,
          "commit is older than the stale-commit window object="
              + key
              + " objectTime="
              + c.objectTimeMillis()
              + " clock="
              + clockMillis
              + " staleCommitAfterMillis="
              + staleCommitMillis);
    }
    String invalid = validate(c);
    if (invalid != null) {
      return rejected(RejectReason.INVALID, invalid + " object=" + key);
    }
    List<List<BatchResult>> results = new ArrayList<>(c.chunks().size());
    for (ChunkCommit chunk : c.chunks()) {
      results.add(sequenceChunk(key, chunk, clockMillis));
    }
    if (!objects.isReferenced(key)) {
      // Nothing was appended (duplicates, unknown partitions): the object exists but no entry will
      // ever reference it, so it is garbage at once.
      objects.retire(key, clockMillis);
    }
    Outcome.WalCommitted outcome = new Outcome.WalCommitted(false, results);
    dedupe.put(previous, new DedupeRecord(key, c.objectTimeMillis(), outcome));
    return outcome;
  }

  // Built only when a batch is refused: validate runs on every commit (the apply hot path).
  private static String at(int chunk, int batch) {
    return " chunk=" + chunk + " batch=" + batch;
  }

  /** Structural checks of a commit; returns a message or null when valid. */
  private static String validate(CommitWal c) {
    if (c.objectSize() < 0) {
      return "objectSize must be >= 0 objectSize=" + c.objectSize();
    }
    List<long[]> ranges = new ArrayList<>();
    for (int ci = 0; ci < c.chunks().size(); ci++) {
      ChunkCommit chunk = c.chunks().get(ci);
      long prevEnd = -1;
      for (int bi = 0; bi < chunk.batches().size(); bi++) {
        BatchCommit b = chunk.batches().get(bi);
        if (b.recordCount() < 1) {
          return "recordCount must be >= 1" + at(ci, bi) + " recordCount=" + b.recordCount();
        }
        if (b.byteLength() < MIN_BATCH_BYTES) {
          return "byteLength must be >= "
              + MIN_BATCH_BYTES
              + at(ci, bi)
              + " byteLength="
              + b.byteLength();
        }
        if (b.byteOffset() < 0 || b.byteOffset() > c.objectSize() - b.byteLength()) {
          return "batch lies outside the object"
              + at(ci, bi)
              + " byteOffset="
              + b.byteOffset()
              + " byteLength="
              + b.byteLength()
              + " objectSize="
              + c.objectSize();
        }
        if (b.byteOffset() < prevEnd) {
          return "batches must be in increasing, non-overlapping byte order"
              + at(ci, bi)
              + " byteOffset="
              + b.byteOffset();
        }
        String fence = validateFence(b.fence(), b.producerId());
        if (fence != null) {
          return fence + at(ci, bi);
        }
        if (b.producerId() >= 0 && (b.producerEpoch() < 0 || b.baseSequence() < 0)) {
          return "an idempotent batch needs producerEpoch >= 0 and baseSequence >= 0"
              + at(ci, bi)
              + " producerId="
              + b.producerId()
              + " producerEpoch="
              + b.producerEpoch()
              + " baseSequence="
              + b.baseSequence();
        }
        prevEnd = b.byteOffset() + b.byteLength();
        ranges.add(new long[] {b.byteOffset(), prevEnd});
      }
    }
    // Batches of different chunks must not overlap either: one byte belongs to one partition.
    ranges.sort(Comparator.comparingLong(r -> r[0]));
    for (int i = 1; i < ranges.size(); i++) {
      if (ranges.get(i)[0] < ranges.get(i - 1)[1]) {
        return "batches of different chunks overlap byteOffset=" + ranges.get(i)[0];
      }
    }
    return null;
  }

  /** A fenced batch's own checks (docs/design/changelog.md); null when valid or not fenced. */
  private static String validateFence(Fence f, long producerId) {
    if (f == null) {
      return null;
    }
    if (!Catalog.validName(f.source())) {
      return "a fence names an invalid source: 1..249 of [A-Za-z0-9._-] source=" + f.source();
    }
    if (producerId >= 0) {
      // The fence is the batch's dedupe; Kafka's sequence window would be a second, weaker one.
      return "a fenced batch is not idempotent-producer batch producerId=" + producerId;
    }
    if (f.leaseEpoch() < 1 || f.sourceFrom() < 0 || f.sourceTo() < f.sourceFrom()) {
      return "a fence needs leaseEpoch >= 1 and 0 <= sourceFrom <= sourceTo leaseEpoch="
          + f.leaseEpoch()
          + " sourceFrom="
          + f.sourceFrom()
          + " sourceTo="
          + f.sourceTo();
    }
    return null;
  }

  private List<BatchResult> sequenceChunk(String objectKey, ChunkCommit chunk, long clockMillis) {
    List<BatchResult> out = new ArrayList<>(chunk.batches().size());
    Catalog.StreamState s = catalog.stream(chunk.streamId());
    if (s == null || chunk.partition() < 0 || chunk.partition() >= s.partitions.length) {
      for (int i = 0; i < chunk.batches().size(); i++) {
        out.add(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1));
      }
      return out;
    }
    PartitionState p = s.partitions[chunk.partition()];
    Run run = null;
    for (BatchCommit b : chunk.batches()) {
      Fence fence = b.fence();
      if (fence != null) {
        // The exactly-once rule of §8.1: only the current writer, only what continues the source.
        BatchStatus fs = writers.check(chunk.streamId(), chunk.partition(), fence, clockMillis);
        if (fs != BatchStatus.APPENDED) {
          out.add(new BatchResult(fs, -1));
          continue;
        }
      }
      BatchResult r = checkProducer(p, b);
      if (r.status() != BatchStatus.APPENDED) {
        out.add(r);
        continue;
      }
      long base = p.highWatermark;
      p.highWatermark += b.recordCount();
      if (b.producerId() >= 0) {
        recordProducerBatch(p, b, base);
      }
      if (fence != null) {
        writers.appended(chunk.streamId(), chunk.partition(), fence, clockMillis);
      }
      out.add(new BatchResult(BatchStatus.APPENDED, base));
      // Byte-adjacent accepted batches of one chunk share one index entry: fewer entries, and a
      // reader fetches them with one ranged GET. Offsets are adjacent too, since nothing else is
      // appended to this partition inside one chunk.
      if (run != null && run.canExtend(b)) {
        run.extend(b);
      } else {
        if (run != null) {
          objects.addEntry(p, run.toEntry(objectKey));
        }
        run = new Run(base, b);
      }
    }
    if (run != null) {
      objects.addEntry(p, run.toEntry(objectKey));
    }
    return out;
  }

  /**
   * Kafka's idempotent-producer check against the last {@code producerBatchesKept} batches of the
   * producer (§3 "Sequencer"). Returns APPENDED (with a placeholder offset) when the batch is to be
   * appended.
   */
  private static BatchResult checkProducer(PartitionState p, BatchCommit b) {
    if (b.producerId() < 0) {
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    ProducerState ps = p.producers.get(b.producerId());
    if (ps == null) {
      // Unknown producer (new, or its state was lost): any sequence starts it, as Kafka does.
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    if (b.producerEpoch() < ps.epoch) {
      return new BatchResult(BatchStatus.PRODUCER_FENCED, -1);
    }
    if (b.producerEpoch() > ps.epoch) {
      return new BatchResult(
          b.baseSequence() == 0 ? BatchStatus.APPENDED : BatchStatus.OUT_OF_ORDER_SEQUENCE, -1);
    }
    int last = lastSequence(b.baseSequence(), b.recordCount());
    SeqEntry dup = ps.find(b.baseSequence(), last);
    if (dup != null) {
      return new BatchResult(BatchStatus.DUPLICATE, dup.baseOffset());
    }
    if (b.baseSequence() == nextSequence(ps.batches.peekLast().lastSequence())) {
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    return new BatchResult(BatchStatus.OUT_OF_ORDER_SEQUENCE, -1);
  }

  private void recordProducerBatch(PartitionState p, BatchCommit b, long baseOffset) {
    ProducerState ps = p.producers.get(b.producerId());
    if (ps == null) {
      ps = new ProducerState(b.producerEpoch());
      p.producers.put(b.producerId(), ps);
    } else if (b.producerEpoch() != ps.epoch) {
      // A new epoch (accepted only at sequence 0) starts a fresh sequence history.
      ps.epoch = b.producerEpoch();
      ps.batches.clear();
    }
    ps.add(
        new SeqEntry(b.baseSequence(), lastSequence(b.baseSequence(), b.recordCount()), baseOffset),
        producerBatchesKept);
  }

  /** Kafka's sequence arithmetic: sequences wrap from Integer.MAX_VALUE to 0. */
  static int lastSequence(int baseSequence, int recordCount) {
    return (int) (((long) baseSequence + recordCount - 1) % (1L + Integer.MAX_VALUE));
  }

  static int nextSequence(int lastSequence) {
    return lastSequence == Integer.MAX_VALUE ? 0 : lastSequence + 1;
  }

  /** An open run of byte-adjacent accepted batches that will become one index entry. */
  private static final class Run {
    final long baseOffset;
    final long byteOffset;
    long recordCount;
    long byteLength;
    long maxTimestamp;

    Run(long baseOffset, BatchCommit b) {
      this.baseOffset = baseOffset;
      this.byteOffset = b.byteOffset();
      this.recordCount = b.recordCount();
      this.byteLength = b.byteLength();
      this.maxTimestamp = b.maxTimestamp();
    }

    boolean canExtend(BatchCommit b) {
      return b.byteOffset() == byteOffset + byteLength
          && byteLength + b.byteLength() <= Integer.MAX_VALUE
          && recordCount + b.recordCount() <= Integer.MAX_VALUE;
    }

    void extend(BatchCommit b) {
      recordCount += b.recordCount();
      byteLength += b.byteLength();
      maxTimestamp = Math.max(maxTimestamp, b.maxTimestamp());
    }

    IndexEntry toEntry(String objectKey) {
      return new IndexEntry(
          baseOffset, (int) recordCount, objectKey, byteOffset, (int) byteLength, maxTimestamp);
    }
  }
}
