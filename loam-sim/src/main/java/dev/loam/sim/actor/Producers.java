package dev.loam.sim.actor;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.ProducerIdentity;
import dev.loam.error.LoamException.Kind;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimStream;
import dev.loam.sim.check.Availability;
import dev.loam.sim.check.Checker;
import dev.loam.sim.check.History;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The clients that append: plain appends (1–3 records, explicit partition or keyed) that are never
 * retried, and idempotent producers, each bound to one partition, whose batches are retried with
 * the same identity and bytes on UNAVAILABLE, OUTCOME_UNKNOWN, FENCED or CONFLICT (up to 40
 * attempts, through any reachable node) and abandoned with an epoch bump otherwise.
 *
 * <p>Every other idempotent producer speaks the Kafka gateway's produce path instead: it encodes
 * its records as a client's RecordBatch v2 (producer id, epoch and base sequence in the batch, as a
 * Kafka producer sends it) and appends it with {@link dev.loam.api.Log#appendBatch}, resending the
 * same bytes on a retry, so batch validation, verbatim storage and the sequence checks of that path
 * run under every fault.
 *
 * <p>Every answer is a verdict recorded in the {@link History} and checked as it arrives: an
 * acknowledgement is observed at its offsets, and an append never fails INTERNAL, CORRUPTION or
 * INVALID.
 */
public final class Producers {
  private static final class Producer {
    final long id;
    final SimStream stream;
    final int partition;
    final boolean kafka;
    short epoch;
    int sequence;
    History.Append outstanding;
    ProducerIdentity identity;
    byte[] batch; // the outstanding batch's bytes, for a Kafka-path producer

    Producer(long id, SimStream stream, int partition, boolean kafka) {
      this.id = id;
      this.stream = stream;
      this.partition = partition;
      this.kafka = kafka;
    }
  }

  private final SimContext ctx;
  private final SimCluster cluster;
  private final SplittableRandom workRandom;
  private final List<SimStream> streams;
  private final History history;
  private final Checker checker;
  private final Availability availability;
  private final List<Producer> producers = new ArrayList<>();

  /** Plain appends through one node process to one stream, oldest first, still without verdict. */
  private final java.util.Map<Via, java.util.ArrayDeque<History.Append>> unanswered =
      new java.util.HashMap<>();

  /** Per node process and partition, the greatest offset a new plain record was acknowledged at. */
  private final java.util.Map<Via, Long> lastAcked = new java.util.HashMap<>();

  /** A node process (compared by identity) and a stream, with a partition or -1. */
  private record Via(Object node, String stream, int partition) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Via v
          && v.node == node
          && v.stream.equals(stream)
          && v.partition == partition;
    }

    @Override
    public int hashCode() {
      return (System.identityHashCode(node) * 31 + stream.hashCode()) * 31 + partition;
    }
  }

  /**
   * @param workRandom the workload's stream, shared with the other clients in draw order
   */
  public Producers(
      SimContext ctx,
      SimCluster cluster,
      SplittableRandom workRandom,
      List<SimStream> streams,
      History history,
      Checker checker,
      Availability availability) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.workRandom = workRandom;
    this.streams = streams;
    this.history = history;
    this.checker = checker;
    this.availability = availability;
  }

  /** Adds {@code count} idempotent producers, each on a partition drawn from the streams. */
  public void create(int count) {
    for (int p = 0; p < count; p++) {
      SimStream st = streams.get(workRandom.nextInt(streams.size()));
      // Odd producers take the Kafka path: decided by position, so no draw shifts the workload.
      producers.add(new Producer(1000 + p, st, workRandom.nextInt(st.partitions()), p % 2 == 1));
    }
  }

  /** No idempotent batch is waiting for its verdict. */
  public boolean settled() {
    return producers.stream().allMatch(p -> p.outstanding == null);
  }

  /** One plain append through a running node (none when no node runs). */
  public void plainAppend() {
    SimCluster.Node n = cluster.liveNode();
    if (n == null) {
      return;
    }
    SimStream st = streams.get(workRandom.nextInt(streams.size()));
    History.Append a = history.begin(st, false);
    int partition = workRandom.nextBoolean() ? workRandom.nextInt(st.partitions()) : -1;
    List<AppendRecord> recs = records(a, partition, 1 + workRandom.nextInt(3));
    a.attempt(ctx.clock().nanos(), n.clock().offset().isZero());
    ctx.trace().add("append a=" + a.id() + " node=" + n.id() + " records=" + recs.size());
    ctx.opStarted();
    Via via = new Via(n.node(), st.name(), -1);
    unanswered.computeIfAbsent(via, k -> new java.util.ArrayDeque<>()).add(a);
    n.node()
        .log()
        .append(SimContext.NS, st.name(), recs)
        .whenComplete(
            (res, e) -> {
              ctx.opDone();
              inSubmissionOrder(via, a, res);
              verdict(a, res, e);
            });
  }

  /** The next batch of a producer drawn at random, unless its last one is still outstanding. */
  public void idempotentAppend() {
    Producer p = producers.get(workRandom.nextInt(producers.size()));
    if (p.outstanding == null) {
      nextIdempotent(p);
    }
  }

  private List<AppendRecord> records(History.Append a, int partition, int n) {
    List<AppendRecord> recs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String v = "a" + a.id() + ".r" + i + "." + "x".repeat(workRandom.nextInt(300));
      a.addValue(v);
      AppendRecord rec =
          AppendRecord.of(
              ("k" + workRandom.nextInt(16)).getBytes(StandardCharsets.UTF_8),
              v.getBytes(StandardCharsets.UTF_8));
      if (partition >= 0) {
        rec = rec.toPartition(partition);
      }
      recs.add(rec);
    }
    return recs;
  }

  private void nextIdempotent(Producer p) {
    History.Append a = history.begin(p.stream, true);
    p.outstanding = a;
    p.identity = new ProducerIdentity(p.id, p.epoch, p.sequence);
    List<AppendRecord> recs = records(a, p.partition, 1 + workRandom.nextInt(3));
    if (p.kafka) {
      List<RecordData> data = new ArrayList<>();
      long createMillis = ctx.clock().millis();
      for (AppendRecord r : recs) {
        data.add(RecordData.of(createMillis, r.key(), r.value()));
      }
      // The batch's create time, which retention judges it by, may precede its first attempt.
      a.clientStamped(TimeUnit.MILLISECONDS.toNanos(createMillis));
      p.batch =
          RecordBatchEncoder.encode(
              new BatchSettings(
                  0L, Compression.NONE, TimestampType.CREATE_TIME, p.id, p.epoch, p.sequence),
              data);
    }
    sendIdempotent(p, recs);
  }

  /** The append of one attempt: the record API, or the Kafka path's batch for such a producer. */
  private CompletableFuture<AppendResult> send(
      SimCluster.Node n, Producer p, List<AppendRecord> recs) {
    if (!p.kafka) {
      return n.node().log().append(SimContext.NS, p.stream.name(), recs, p.identity);
    }
    int count = recs.size();
    return n.node()
        .log()
        .appendBatch(SimContext.NS, p.stream.name(), p.partition, ByteBuffer.wrap(p.batch))
        .thenApply(
            r -> {
              List<AppendResult.RecordPosition> positions = new ArrayList<>();
              for (int i = 0; i < count; i++) {
                positions.add(new AppendResult.RecordPosition(p.partition, r.baseOffset() + i));
              }
              return new AppendResult(positions, r.consistencyToken(), r.duplicate());
            });
  }

  private void sendIdempotent(Producer p, List<AppendRecord> recs) {
    History.Append a = p.outstanding;
    SimCluster.Node n = cluster.liveNode();
    if (n == null) {
      retryLater(p, recs);
      return;
    }
    a.attempt(ctx.clock().nanos(), n.clock().offset().isZero());
    ctx.trace()
        .add(
            "idem a="
                + a.id()
                + " node="
                + n.id()
                + " id="
                + p.identity
                + " attempt="
                + a.attempts());
    ctx.opStarted();
    if (p.kafka) {
      ctx.count("kafkaPathAttempts");
    }
    send(n, p, recs)
        .whenComplete(
            (res, e) -> {
              ctx.opDone();
              verdict(a, res, e);
              if (e == null) {
                if (p.kafka) {
                  ctx.count("kafkaPathAcked");
                }
                p.sequence += recs.size();
                p.outstanding = null;
                return;
              }
              Kind k = SimContext.kind(e);
              boolean retriable =
                  k == Kind.UNAVAILABLE
                      || k == Kind.OUTCOME_UNKNOWN
                      || k == Kind.FENCED
                      || k == Kind.CONFLICT;
              if (retriable && a.attempts() < 40) {
                retryLater(p, recs);
              } else {
                // Give up on this batch: a Kafka producer re-initialises with a new epoch.
                ctx.trace().add("idem abandon a=" + a.id() + " kind=" + k);
                ctx.count("idempotentAbandoned");
                p.epoch++;
                p.sequence = 0;
                p.outstanding = null;
              }
            });
  }

  private void retryLater(Producer p, List<AppendRecord> recs) {
    ctx.count("idempotentRetries");
    ctx.opStarted();
    ctx.scheduler()
        .schedule(
            () -> {
              ctx.opDone();
              sendIdempotent(p, recs);
            },
            50 + workRandom.nextInt(450),
            TimeUnit.MILLISECONDS);
  }

  /**
   * A node's writer answers in submission order, and gives one partition's new records offsets in
   * that order (docs/design/write-path.md "Several commits in flight"): a plain append must not be
   * acknowledged while an older one through the same node process to the same stream is still
   * unanswered, nor at an offset below one an older append of its partition got.
   */
  private void inSubmissionOrder(Via via, History.Append a, AppendResult res) {
    java.util.ArrayDeque<History.Append> q = unanswered.get(via);
    if (a.stream().quorum()) {
      // A quorum stream has no node writer: each append is its own journal proposal, and one that
      // raced its partition's HOST is proposed again behind later ones (docs/design/quorum.md
      // "Quorum streams"), so one node's appends are not answered in submission order.
      q.remove(a);
      return;
    }
    if (res != null && q.peek() != a) {
      checker.violation(
          "append acknowledged before an older append through the same node a="
              + a.id()
              + " older="
              + q.peek().id());
    }
    q.remove(a);
    if (res == null || res.duplicate()) {
      return;
    }
    for (AppendResult.RecordPosition pos : res.positions()) {
      Via part = new Via(via.node(), via.stream(), pos.partition());
      Long last = lastAcked.get(part);
      if (last != null && pos.offset() <= last) {
        checker.violation(
            "append got an offset at or below an older append's in its partition a="
                + a.id()
                + " part="
                + via.stream()
                + "/"
                + pos.partition()
                + " offset="
                + pos.offset()
                + " older="
                + last);
      }
      lastAcked.merge(part, pos.offset(), Math::max);
    }
  }

  private void verdict(History.Append a, AppendResult res, Throwable e) {
    if (e == null) {
      ctx.trace()
          .add("ack a=" + a.id() + " positions=" + res.positions() + " dup=" + res.duplicate());
      if (a.acked() != null) {
        checker.violation("append acknowledged twice a=" + a.id());
      }
      a.acknowledged(res);
      availability.acknowledged();
      if (a.stream().quorum()) {
        ctx.count("quorum.acked");
      }
      if (res.positions().size() != a.values().size()) {
        checker.violation("ack with wrong position count a=" + a.id());
        return;
      }
      for (int i = 0; i < a.values().size(); i++) {
        AppendResult.RecordPosition pos = res.positions().get(i);
        checker.observe(
            new Checker.Part(a.stream().name(), pos.partition()),
            pos.offset(),
            a.values().get(i),
            "ack a=" + a.id());
        // A quorum ack carries no consistency token (0): its reads are the replica's applied
        // state, not ordered by metastore index, so read-your-writes by token does not apply.
        if (!res.duplicate() && !a.stream().quorum()) {
          checker.acknowledged(
              new Checker.Part(a.stream().name(), pos.partition()),
              pos.offset(),
              res.consistencyToken());
        }
      }
      return;
    }
    Kind k = SimContext.kind(e);
    ctx.trace().add("fail a=" + a.id() + " kind=" + k);
    ctx.count("appendFailed." + k);
    if (k == Kind.OUTCOME_UNKNOWN) {
      a.outcomeUnknown();
    } else if (k == Kind.INTERNAL || k == Kind.CORRUPTION || k == Kind.INVALID) {
      checker.violation("append failed with kind=" + k + " a=" + a.id() + " " + e);
    }
  }
}
