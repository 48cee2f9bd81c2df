package dev.loam.journal.seal;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.ratis.Journals;
import dev.loam.journal.state.SealPoint;
import dev.loam.journal.state.UnsealedRange;
import dev.loam.spi.quorum.SegmentNamer;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Seals a journal's committed ranges into segment objects (docs/design/quorum.md "Sealing"), driven
 * from outside: each {@link #poll()} works, on the journal's leader only, on every hosted partition
 * at once, and per partition does one of two things:
 *
 * <ol>
 *   <li>when the {@link OffsetIndex} already holds segments from the partition's sealed offset on
 *       (a commit whose journal seal never happened: the leader died in between, or the seal's
 *       proposal failed), it proposes their {@code SEAL}s, so the journal catches up with the
 *       index;
 *   <li>else, when the partition's unsealed tail holds {@code minSealBytes} or more (or the journal
 *       holds half its bound of unsealed bytes, or the partition's sealed offset has not moved for
 *       {@code quietSealMillis} while its tail was not empty: then any non-empty tail), it writes
 *       the oldest tail batches, up to about {@code maxSegmentBytes}, as one segment
 *       (docs/formats/segment-v1.md: the batches verbatim, their assigned offsets in place) with
 *       the sink's create-if-absent, commits it into the offset index, and only then proposes
 *       {@code SEAL}, which drops the range from every replica's tail; a later snapshot lets Ratis
 *       purge the log behind it.
 * </ol>
 *
 * <p>So the journal drops a range only once the index points at a segment holding it: a refused or
 * failed step leaves the range in the tail (read from there, sealed again by a later pass) and at
 * worst an orphan segment, never a hole. A segment the index refused (another sealer's commit of
 * the range came first: a deposed leader's, or a race) is an orphan, deleted by GC like any segment
 * whose commit was refused; a seal that no longer starts at the sealed offset is refused {@code
 * BAD_SEAL} by the journal and changes nothing.
 *
 * <p>Not thread-safe: one driver calls {@link #poll()}, waiting for each pass before the next.
 */
public final class JournalSealer {
  private final Journals server;
  private final String journal;
  private final SegmentSink sink;
  private final SegmentNamer names;
  private final OffsetIndex index;
  private final long minSealBytes;
  private final long maxSegmentBytes;
  private final long quietSealMillis;
  private final LongSupplier clockMillis;

  /**
   * Per partition with a non-empty tail, the sealed offset this sealer last saw and when it first
   * saw it: the start of the partition's quiet time. Local to this leader, so a new leader starts
   * counting afresh (a seal at most one quiet interval later).
   */
  private final Map<PartitionKey, Quiet> quiet = new HashMap<>();

  private final AtomicLong segmentsWritten = new AtomicLong();
  private final AtomicLong commitsRefused = new AtomicLong();

  /**
   * @param minSealBytes a partition's tail is sealed once it holds this many bytes
   * @param maxSegmentBytes a segment holds about this many batch bytes at most (at least one batch)
   * @throws LoamException INVALID if a bound is not positive or min exceeds max
   */
  public JournalSealer(
      Journals server,
      String journal,
      SegmentSink sink,
      SegmentNamer names,
      OffsetIndex index,
      long minSealBytes,
      long maxSegmentBytes) {
    this(
        server,
        journal,
        sink,
        names,
        index,
        minSealBytes,
        maxSegmentBytes,
        Long.MAX_VALUE,
        () -> 0L);
  }

  /**
   * The time-based seal: after {@code quietSealMillis} without a seal, a partition's non-empty tail
   * is sealed whatever its size, so that a quiet partition's records reach segments, where
   * retention trims them, instead of staying in the journal for good.
   *
   * @param quietSealMillis how long a non-empty tail may go unsealed; {@link Long#MAX_VALUE} for
   *     never
   * @param clockMillis the node's clock, in milliseconds
   * @throws LoamException INVALID if a bound is not positive or min exceeds max
   */
  public JournalSealer(
      Journals server,
      String journal,
      SegmentSink sink,
      SegmentNamer names,
      OffsetIndex index,
      long minSealBytes,
      long maxSegmentBytes,
      long quietSealMillis,
      LongSupplier clockMillis) {
    this.server = Objects.requireNonNull(server, "server");
    this.journal = Objects.requireNonNull(journal, "journal");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.names = Objects.requireNonNull(names, "names");
    this.index = Objects.requireNonNull(index, "index");
    this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
    if (minSealBytes <= 0 || maxSegmentBytes < minSealBytes) {
      throw new LoamException(
          Kind.INVALID,
          "seal bounds need 0 < minSealBytes <= maxSegmentBytes minSealBytes="
              + minSealBytes
              + " maxSegmentBytes="
              + maxSegmentBytes);
    }
    if (quietSealMillis <= 0) {
      throw new LoamException(
          Kind.INVALID, "quietSealMillis must be positive quietSealMillis=" + quietSealMillis);
    }
    this.minSealBytes = minSealBytes;
    this.maxSegmentBytes = maxSegmentBytes;
    this.quietSealMillis = quietSealMillis;
  }

  private record PartitionKey(long streamId, int partition) {}

  private record Quiet(long sealedOffset, long sinceMillis) {}

  /** What one pass works from, read from the journal state at once. */
  private record Plan(List<SealPoint> points, List<UnsealedRange> ranges) {}

  /**
   * One pass. Completes with the result of each SEAL proposed (none on a follower, or when no tail
   * is large enough and the index holds nothing unsealed); fails if a segment write, a commit or a
   * proposal failed (the next pass finds out what happened and goes on from there).
   */
  public CompletableFuture<List<JournalResult>> poll() {
    if (!server.isLeader(journal)) {
      return CompletableFuture.completedFuture(List.of());
    }
    Plan plan =
        server.query(
            journal,
            s -> {
              List<SealPoint> points = s.sealPoints();
              Set<PartitionKey> due = quietPartitions(points);
              // Under pressure every tail counts, so many small partitions cannot fill the journal
              // while none of them reaches the threshold.
              long min = 2 * s.unsealedBytes() >= s.maxUnsealedBytes() ? 1 : minSealBytes;
              List<UnsealedRange> ranges = s.unsealed(min, maxSegmentBytes);
              if (min > 1 && !due.isEmpty()) {
                List<UnsealedRange> withQuiet = new ArrayList<>(ranges);
                for (UnsealedRange r : s.unsealed(1, maxSegmentBytes)) {
                  if (due.contains(new PartitionKey(r.streamId(), r.partition()))
                      && ranges.stream()
                          .noneMatch(
                              x ->
                                  x.streamId() == r.streamId() && x.partition() == r.partition())) {
                    withQuiet.add(r);
                  }
                }
                ranges = withQuiet;
              }
              return new Plan(points, ranges);
            });
    List<CompletableFuture<List<JournalResult>>> work = new ArrayList<>();
    for (SealPoint p : plan.points()) {
      if (p.tailBytes() == 0) {
        continue; // a commit only ever holds tail batches: nothing can be pending
      }
      List<SegmentPointer> committed =
          index.committedFrom(p.streamId(), p.partition(), p.sealedOffset());
      if (!committed.isEmpty()) {
        work.add(sealAll(p, committed, 0, new ArrayList<>()));
        continue;
      }
      for (UnsealedRange r : plan.ranges()) {
        if (r.streamId() == p.streamId() && r.partition() == p.partition()) {
          work.add(seal(r));
        }
      }
    }
    return CompletableFuture.allOf(work.toArray(CompletableFuture[]::new))
        .thenApply(v -> work.stream().flatMap(f -> f.join().stream()).toList());
  }

  /**
   * Starts or keeps each partition's quiet time from the journal's seal points (a seal, which moves
   * the sealed offset, restarts it; an empty tail ends it) and answers the partitions whose
   * non-empty tail has gone unsealed for the quiet interval.
   */
  private Set<PartitionKey> quietPartitions(List<SealPoint> points) {
    if (quietSealMillis == Long.MAX_VALUE) {
      return Set.of();
    }
    long now = clockMillis.getAsLong();
    Map<PartitionKey, Quiet> next = new HashMap<>();
    Set<PartitionKey> due = new HashSet<>();
    for (SealPoint p : points) {
      if (p.tailBytes() == 0) {
        continue;
      }
      PartitionKey k = new PartitionKey(p.streamId(), p.partition());
      Quiet q = quiet.get(k);
      if (q == null || q.sealedOffset() != p.sealedOffset()) {
        q = new Quiet(p.sealedOffset(), now);
      }
      next.put(k, q);
      if (now - q.sinceMillis() >= quietSealMillis) {
        due.add(k);
      }
    }
    quiet.clear();
    quiet.putAll(next);
    return due;
  }

  /**
   * One step of sealing one partition's whole tail, whatever its size (moving the partition to
   * another journal needs it all in segments): the same two cases as a pass, for this partition
   * only and with no threshold. Completes with the SEALs proposed (none on a follower or for an
   * empty tail); the caller repeats it until the tail is empty.
   */
  public CompletableFuture<List<JournalResult>> sealTail(long streamId, int partition) {
    if (!server.isLeader(journal)) {
      return CompletableFuture.completedFuture(List.of());
    }
    Plan plan =
        server.query(journal, s -> new Plan(s.sealPoints(), s.unsealed(1, maxSegmentBytes)));
    for (SealPoint p : plan.points()) {
      if (p.streamId() != streamId || p.partition() != partition || p.tailBytes() == 0) {
        continue;
      }
      List<SegmentPointer> committed = index.committedFrom(streamId, partition, p.sealedOffset());
      if (!committed.isEmpty()) {
        return sealAll(p, committed, 0, new ArrayList<>());
      }
      for (UnsealedRange r : plan.ranges()) {
        if (r.streamId() == streamId && r.partition() == partition) {
          return seal(r);
        }
      }
    }
    return CompletableFuture.completedFuture(List.of());
  }

  /** Segments written so far (each committed, refused or of unknown outcome). */
  public long segmentsWritten() {
    return segmentsWritten.get();
  }

  /** Segments the index refused: orphans, left to GC. */
  public long commitsRefused() {
    return commitsRefused.get();
  }

  private CompletableFuture<List<JournalResult>> sealAll(
      SealPoint p, List<SegmentPointer> committed, int i, List<JournalResult> out) {
    if (i >= committed.size()) {
      return CompletableFuture.completedFuture(out);
    }
    return server
        .propose(journal, new JournalEntry.Seal(p.streamId(), p.partition(), committed.get(i)))
        .thenCompose(
            r -> {
              out.add(r);
              return r instanceof JournalResult.Sealed
                  ? sealAll(p, committed, i + 1, out)
                  : CompletableFuture.completedFuture(out);
            });
  }

  private CompletableFuture<List<JournalResult>> seal(UnsealedRange r) {
    try {
      return write(r);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<List<JournalResult>> write(UnsealedRange r) {
    SegmentBuilder b = new SegmentBuilder(r.streamId(), r.partition(), r.baseOffset());
    for (byte[] batch : r.batches()) {
      b.addEntry(b.nextOffset(), batch);
    }
    Segment segment = b.build();
    SegmentNamer.SegmentName name = names.name(r.streamId(), r.partition(), r.baseOffset());
    SegmentPointer pointer = new SegmentPointer(r.baseOffset(), segment.endOffset(), name.key());
    segmentsWritten.incrementAndGet();
    return sink.putIfAbsent(name.key(), segment.bytes())
        .thenCompose(
            v -> index.commit(r.streamId(), r.partition(), pointer, segment, name.timeMillis()))
        .thenCompose(
            committed -> {
              if (!committed) {
                commitsRefused.incrementAndGet();
                return CompletableFuture.completedFuture(List.<JournalResult>of());
              }
              return server
                  .propose(journal, new JournalEntry.Seal(r.streamId(), r.partition(), pointer))
                  .thenApply(List::of);
            });
  }
}
