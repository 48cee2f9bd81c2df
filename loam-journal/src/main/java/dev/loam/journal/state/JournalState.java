package dev.loam.journal.state;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.JournalResult.Reason;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatches;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * A journal's deterministic state (docs/design/quorum.md "The journal state machine"): the
 * partitions it hosts, the offsets it assigned, their unsealed tails and producer tables. Every
 * replica applies the same entries in the same order and therefore assigns the same offsets and
 * gives the same answers; {@link #snapshot()} of two such replicas are byte-identical.
 *
 * <p>Rejections are {@link JournalResult.Rejected} values; {@link #apply} throws only on a broken
 * invariant (a bug), which stops the replica.
 *
 * <p>Not thread-safe: the Ratis adapter applies under a write lock and reads under a read lock.
 */
public final class JournalState {
  private final long maxUnsealedBytes;
  final TreeMap<PartitionKey, PartitionJournal> partitions = new TreeMap<>();
  long appliedEntries;
  private long unsealedBytes;

  /** A hosted partition's identity, ordered by stream then partition. */
  record PartitionKey(long streamId, int partition) implements Comparable<PartitionKey> {
    @Override
    public int compareTo(PartitionKey o) {
      int c = Long.compare(streamId, o.streamId);
      return c != 0 ? c : Integer.compare(partition, o.partition);
    }
  }

  /**
   * An empty journal.
   *
   * @param maxUnsealedBytes the bound on the batch bytes of every tail together; identical on every
   *     replica, since apply depends on it
   * @throws LoamException INVALID if it is not positive
   */
  public JournalState(long maxUnsealedBytes) {
    if (maxUnsealedBytes <= 0) {
      throw new LoamException(
          Kind.INVALID, "maxUnsealedBytes must be positive maxUnsealedBytes=" + maxUnsealedBytes);
    }
    this.maxUnsealedBytes = maxUnsealedBytes;
  }

  /** Applies one committed entry and returns its result. */
  public JournalResult apply(JournalEntry entry) {
    appliedEntries++;
    PartitionKey key = new PartitionKey(entry.streamId(), entry.partition());
    PartitionJournal p = partitions.get(key);
    if (entry instanceof JournalEntry.Host h) {
      if (p != null) {
        return new JournalResult.Rejected(
            Reason.ALREADY_HOSTED, "partition already hosted" + ids(key));
      }
      partitions.put(key, new PartitionJournal(h.startOffset()));
      return new JournalResult.Hosted(h.startOffset());
    }
    if (p == null) {
      return new JournalResult.Rejected(
          Reason.UNKNOWN_PARTITION, "partition not hosted by this journal" + ids(key));
    }
    if (entry instanceof JournalEntry.Append a) {
      return append(key, p, a);
    }
    if (entry instanceof JournalEntry.Release r) {
      if (p.sealedOffset != r.endOffset() || p.nextOffset != r.endOffset()) {
        // Appends came after the last seal: the mover seals them and tries again.
        return new JournalResult.Rejected(
            Reason.BAD_SEAL,
            "a release needs the whole tail sealed up to its end"
                + ids(key)
                + " endOffset="
                + r.endOffset()
                + " sealedOffset="
                + p.sealedOffset
                + " nextOffset="
                + p.nextOffset);
      }
      partitions.remove(key); // an empty tail: no unsealed bytes to give back
      return new JournalResult.Sealed(r.endOffset());
    }
    return seal(key, p, ((JournalEntry.Seal) entry).segment());
  }

  private JournalResult append(PartitionKey key, PartitionJournal p, JournalEntry.Append a) {
    RecordBatch h = a.header();
    int count = h.recordCount();
    ProducerTable.Check c =
        p.producers.check(h.producerId(), h.producerEpoch(), h.baseSequence(), count);
    switch (c.status()) {
      case DUPLICATE:
        return new JournalResult.Duplicate(
            c.duplicateOf().baseOffset(), c.duplicateOf().baseOffset() + count - 1);
      case PRODUCER_FENCED:
        return new JournalResult.Rejected(
            Reason.PRODUCER_FENCED,
            "producer epoch is older than the producer's current epoch"
                + ids(key)
                + " producerId="
                + h.producerId()
                + " producerEpoch="
                + h.producerEpoch());
      case OUT_OF_ORDER_SEQUENCE:
        return new JournalResult.Rejected(
            Reason.OUT_OF_ORDER_SEQUENCE,
            "sequence does not follow the producer's last batch"
                + ids(key)
                + " producerId="
                + h.producerId()
                + " baseSequence="
                + h.baseSequence());
      case APPEND:
        break;
    }
    byte[] bytes = a.batch().clone();
    if (unsealedBytes + bytes.length > maxUnsealedBytes) {
      return new JournalResult.Rejected(
          Reason.TAIL_FULL,
          "journal holds too many unsealed bytes; retry once sealing frees room"
              + ids(key)
              + " unsealedBytes="
              + unsealedBytes
              + " batchBytes="
              + bytes.length
              + " maxUnsealedBytes="
              + maxUnsealedBytes);
    }
    long base = p.nextOffset;
    // A copy of its own (an entry may be applied to more than one state, in tests); the offset
    // goes into the baseOffset field, outside the batch CRC, so the bytes stay a valid batch.
    RecordBatches.setBaseOffset(bytes, 0, base);
    p.addTail(new TailBatch(base, count, bytes));
    unsealedBytes += bytes.length;
    p.producers.record(h.producerId(), h.producerEpoch(), h.baseSequence(), count, base);
    return new JournalResult.Appended(base, base + count - 1);
  }

  private JournalResult seal(PartitionKey key, PartitionJournal p, SegmentPointer s) {
    if (s.baseOffset() != p.sealedOffset || s.endOffset() > p.nextOffset) {
      return badSeal(key, p, s, "a seal must start at the sealed offset and end in the tail");
    }
    int n = 0;
    long freed = 0;
    while (n < p.tail.size() && p.tail.get(n).endOffset() <= s.endOffset()) {
      freed += p.tail.get(n).bytes().length;
      n++;
    }
    if (n == 0 || p.tail.get(n - 1).endOffset() != s.endOffset()) {
      return badSeal(key, p, s, "a seal must end at a batch boundary");
    }
    p.tail.subList(0, n).clear();
    p.tailBytes -= freed;
    unsealedBytes -= freed;
    p.addSegment(s);
    p.sealedOffset = s.endOffset();
    return new JournalResult.Sealed(p.sealedOffset);
  }

  private static JournalResult badSeal(
      PartitionKey key, PartitionJournal p, SegmentPointer s, String why) {
    return new JournalResult.Rejected(
        Reason.BAD_SEAL,
        why
            + ids(key)
            + " sealedOffset="
            + p.sealedOffset
            + " nextOffset="
            + p.nextOffset
            + " segmentBase="
            + s.baseOffset()
            + " segmentEnd="
            + s.endOffset());
  }

  private static String ids(PartitionKey k) {
    return " stream=" + k.streamId() + " partition=" + k.partition();
  }

  /**
   * Reads one partition from {@code fromOffset}: tail batches up to about {@code maxBytes} (at
   * least one batch when there is one), or the segment holding the offset when it is sealed.
   *
   * @throws LoamException NOT_FOUND if the journal does not host the partition; INVALID if {@code
   *     fromOffset} is before the partition's start or past its high watermark, or {@code maxBytes}
   *     is not positive
   */
  public JournalRead read(long streamId, int partition, long fromOffset, int maxBytes) {
    PartitionKey key = new PartitionKey(streamId, partition);
    PartitionJournal p = partitions.get(key);
    if (p == null) {
      throw new LoamException(Kind.NOT_FOUND, "partition not hosted by this journal" + ids(key));
    }
    if (maxBytes <= 0) {
      throw new LoamException(Kind.INVALID, "maxBytes must be positive maxBytes=" + maxBytes);
    }
    if (fromOffset < p.startOffset || fromOffset > p.nextOffset) {
      throw new LoamException(
          Kind.INVALID,
          "offset out of range"
              + ids(key)
              + " offset="
              + fromOffset
              + " startOffset="
              + p.startOffset
              + " highWatermark="
              + p.nextOffset);
    }
    if (fromOffset < p.sealedOffset) {
      return new JournalRead(
          List.of(), Optional.ofNullable(p.segmentOf(fromOffset)), p.sealedOffset, p.nextOffset);
    }
    List<byte[]> out = new ArrayList<>();
    if (fromOffset < p.nextOffset) {
      long bytes = 0;
      for (int i = p.tailIndexOf(fromOffset); i < p.tail.size(); i++) {
        byte[] b = p.tail.get(i).bytes();
        if (!out.isEmpty() && bytes + b.length > maxBytes) {
          break;
        }
        out.add(b.clone());
        bytes += b.length;
      }
    }
    return new JournalRead(out, Optional.empty(), p.sealedOffset, p.nextOffset);
  }

  /**
   * For each hosted partition whose unsealed tail holds at least {@code minBytes}, its oldest tail
   * batches (copies) from the sealed offset, up to about {@code maxBytes} (at least one batch): the
   * next range to seal. In (stream, partition) order.
   *
   * @throws LoamException INVALID if a bound is not positive
   */
  public List<UnsealedRange> unsealed(long minBytes, long maxBytes) {
    if (minBytes <= 0 || maxBytes <= 0) {
      throw new LoamException(
          Kind.INVALID,
          "seal bounds must be positive minBytes=" + minBytes + " maxBytes=" + maxBytes);
    }
    List<UnsealedRange> out = new ArrayList<>();
    for (var e : partitions.entrySet()) {
      PartitionJournal p = e.getValue();
      if (p.tail.isEmpty() || p.tailBytes < minBytes) {
        continue;
      }
      List<byte[]> batches = new ArrayList<>();
      long bytes = 0;
      for (TailBatch b : p.tail) {
        if (!batches.isEmpty() && bytes + b.bytes().length > maxBytes) {
          break;
        }
        batches.add(b.bytes().clone());
        bytes += b.bytes().length;
      }
      out.add(
          new UnsealedRange(
              e.getKey().streamId(), e.getKey().partition(), p.sealedOffset, batches));
    }
    return out;
  }

  /** Every hosted partition's sealed offset, in (stream, partition) order. */
  public List<SealPoint> sealPoints() {
    List<SealPoint> out = new ArrayList<>(partitions.size());
    for (var e : partitions.entrySet()) {
      out.add(
          new SealPoint(
              e.getKey().streamId(),
              e.getKey().partition(),
              e.getValue().sealedOffset,
              e.getValue().tailBytes));
    }
    return out;
  }

  /** The partition's high watermark (the next offset), if the journal hosts it. */
  public OptionalLong highWatermark(long streamId, int partition) {
    PartitionJournal p = partitions.get(new PartitionKey(streamId, partition));
    return p == null ? OptionalLong.empty() : OptionalLong.of(p.nextOffset);
  }

  /** Entries applied so far (accepted or refused). */
  public long appliedEntries() {
    return appliedEntries;
  }

  /** The batch bytes of every unsealed tail together. */
  public long unsealedBytes() {
    return unsealedBytes;
  }

  /** The bound given at construction. */
  public long maxUnsealedBytes() {
    return maxUnsealedBytes;
  }

  /** The snapshot bytes (docs/formats/journal-snapshot-v1.md). */
  public byte[] snapshot() {
    return JournalSnapshotCodec.encode(this);
  }

  /**
   * The state a snapshot holds.
   *
   * @throws dev.loam.error.CorruptionException if the bytes fail any check of the format
   */
  public static JournalState restore(byte[] snapshot, long maxUnsealedBytes) {
    return JournalSnapshotCodec.decode(snapshot, maxUnsealedBytes);
  }

  /** Restores bookkeeping after a snapshot decode added partitions directly. */
  void recountUnsealed() {
    long n = 0;
    for (PartitionJournal p : partitions.values()) {
      n += p.tailBytes;
    }
    unsealedBytes = n;
  }
}
