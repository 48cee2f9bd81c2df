package dev.loam.core.quorum;

import dev.loam.api.BatchFetchResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.NotOwnerException;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OffsetSpec;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.core.read.ReadPath;
import dev.loam.core.write.PendingBatch;
import dev.loam.core.write.WalWriter.BatchAck;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.MetaReader;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamInfo;
import dev.loam.spi.quorum.QuorumHost;
import dev.loam.spi.quorum.QuorumRead;
import dev.loam.wal.batch.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The data path of quorum streams on one node (docs/design/quorum.md "Quorum streams"): placing a
 * new stream's partitions on a journal, appends sent to the journal's leader through this node's
 * replica, and fetches served by this node's replica. A node that is not a replica of the
 * partition's journal answers NOT_OWNER naming a replica (in this node's zone when one is), which
 * serves reads and forwards appends to the leader.
 */
public final class QuorumStreams implements dev.loam.core.write.QuorumSink {
  /**
   * The name prefix of the journals quorum partitions are placed on: {@code quorum-1}, {@code
   * quorum-2}, ... (each journal hosts many partitions).
   */
  public static final String FAMILY = "quorum-";

  /** The family's first journal, placed with the first quorum stream. */
  public static final String JOURNAL = FAMILY + "1";

  /** Replicas of a journal. */
  public static final int REPLICAS = 3;

  /**
   * How many times one fetch past the end waits again: a wake that brings the replica's end closer
   * but not to the reader's offset (records below it, a seal, a late idempotent retry) starts
   * another wait for what is left of the fetch's own, so a reader ahead of this replica is not
   * answered at once and does not ask again in a busy loop. Bounded, should the clock stand still.
   */
  private static final int MAX_PAST_END_WAITS = 64;

  private final NodeContext ctx;
  private final QuorumHost host;
  private final SealedReads sealed;

  /**
   * @param host this node's journal host, or null when the node has no journal port
   * @param fetcher the node's ordinary read path, which serves the sealed offsets
   */
  public QuorumStreams(NodeContext ctx, QuorumHost host, dev.loam.core.read.Fetcher fetcher) {
    this.ctx = ctx;
    this.host = host;
    this.sealed = new SealedReads(ctx.meta(), fetcher);
  }

  /**
   * Refuses a quorum stream before it is created when fewer than {@link #REPLICAS} live nodes
   * advertise a journal port: INVALID naming how many do.
   */
  public void checkPlaceable(String subject) {
    List<String> journalNodes = ctx.meta().read(QuorumStreams::liveJournalNodes);
    if (journalNodes.size() < REPLICAS) {
      throw new LoamException(
          Kind.INVALID,
          "a quorum stream needs "
              + REPLICAS
              + " live nodes with a journal port, the cluster has "
              + journalNodes.size()
              + " "
              + journalNodes
              + " "
              + subject);
    }
  }

  private static List<String> liveJournalNodes(MetaReader r) {
    return r.nodes().stream()
        .filter(n -> r.nodeStatus(n.id()).map(NodeStatus::live).orElse(false))
        .filter(n -> n.endpoints().containsKey(QuorumHost.ENDPOINT))
        .map(NodeInfo::id)
        .sorted()
        .toList();
  }

  /**
   * Assigns each of the stream's partitions to a journal of the {@value #FAMILY} family, which the
   * metastore grows to the journal nodes' capacity as it applies the assignment (one journal per
   * {@value #REPLICAS} slots of the live nodes with a journal port); every step is idempotent, so a
   * retry after a failure finishes the placement. Fails INVALID if no journal can be placed, or one
   * was placed on a node without a journal port.
   *
   * @param placementHint null, or the zone or node id the stream's producers are in: its partitions
   *     go to journals with a replica there, whose leaders the nodes move there
   */
  public CompletableFuture<Void> place(
      long streamId, int partitions, String placementHint, String subject) {
    AssignJournalPartition.Spread spread =
        new AssignJournalPartition.Spread(FAMILY, REPLICAS, QuorumHost.ENDPOINT, placementHint);
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      chain =
          chain.thenCompose(
              v ->
                  propose(
                          new AssignJournalPartition(ctx.origin(), streamId, partition, spread),
                          subject + " partition=" + partition)
                      .thenAccept(o -> checkReplicas((Outcome.JournalPlaced) o, subject)));
    }
    return chain;
  }

  /**
   * Fails INVALID when a journal placed before endpoints were required names a node without one.
   */
  private void checkReplicas(Outcome.JournalPlaced placed, String subject) {
    List<String> capable = ctx.meta().read(QuorumStreams::liveJournalNodes);
    for (String id : placed.replicas()) {
      if (!capable.contains(id)) {
        throw new LoamException(
            Kind.INVALID,
            "the journal was placed on a node without a journal port journal="
                + placed.journal()
                + " node="
                + id
                + " (give every node with slots a journal port) "
                + subject);
      }
    }
  }

  private CompletableFuture<Outcome> propose(dev.loam.meta.command.Command c, String subject) {
    return ctx.meta()
        .propose(c)
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              return a.outcome();
            });
  }

  /**
   * Appends each batch to its partition's journal through this node's replica, in order, and
   * answers one ack per batch (applied index 0: a quorum ack carries no metastore token).
   *
   * <p>Each batch is its own journal proposal, so batches of several partitions are not appended
   * atomically: when one fails and another was appended or may have been (it failed
   * OUTCOME_UNKNOWN), the submit fails OUTCOME_UNKNOWN, never with a definite kind that would tell
   * the caller nothing was written.
   */
  @Override
  public CompletableFuture<List<BatchAck>> submit(
      String namespace, String stream, List<PendingBatch> batches) {
    List<CompletableFuture<BatchAck>> acks = new ArrayList<>();
    for (PendingBatch b : batches) {
      acks.add(
          localJournal(namespace, stream, b.streamId(), b.partition())
              .thenCompose(j -> host.append(j, b.streamId(), b.partition(), b.bytes()))
              .thenApply(r -> new BatchAck(r, 0, null, 0)));
    }
    return CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new))
        .handle(
            (v, t) -> {
              if (t == null) {
                return acks.stream().map(CompletableFuture::join).toList();
              }
              boolean mayHaveLanded =
                  acks.stream()
                      .anyMatch(
                          f -> !f.isCompletedExceptionally() || kindOf(f) == Kind.OUTCOME_UNKNOWN);
              Throwable cause = t instanceof CompletionException ce ? ce.getCause() : t;
              if (!mayHaveLanded) {
                throw t instanceof CompletionException ce ? ce : new CompletionException(t);
              }
              throw new LoamException(
                  Kind.OUTCOME_UNKNOWN,
                  "an append to several partitions of a quorum stream failed on some and was or"
                      + " may have been appended on others stream="
                      + namespace
                      + "/"
                      + stream
                      + ": "
                      + cause.getMessage(),
                  cause);
            });
  }

  /** The kind a failed future failed with (INTERNAL for a failure that is not a LoamException). */
  private static Kind kindOf(CompletableFuture<?> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause() instanceof LoamException le ? le.kind() : Kind.INTERNAL;
    } catch (java.util.concurrent.CancellationException e) {
      return Kind.INTERNAL;
    }
  }

  /** Fetches records of a quorum partition from this node's replica (see {@code Log#fetch}). */
  public CompletableFuture<FetchResult> fetch(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait) {
    return readForFetch(namespace, stream, s, partition, offset, maxBytes, maxWait)
        .thenCompose(
            r -> {
              if (offset < r.startOffset()) {
                return sealed.fetch(
                    namespace, stream, s.id(), partition, offset, maxBytes, r.highWatermark());
              }
              List<FetchedRecord> out = new ArrayList<>();
              long next = offset;
              for (byte[] b : r.batches()) {
                IndexEntry e = entryOf(b, s, partition);
                ReadPath.decode(e, b, partition, offset, out);
                next = Math.max(next, e.endOffset());
              }
              return CompletableFuture.completedFuture(
                  new FetchResult(
                      out, next, r.highWatermark(), sealed.logStart(s.id(), partition)));
            });
  }

  /** Fetches stored batches of a quorum partition (see {@code Log#fetchBatches}). */
  public CompletableFuture<BatchFetchResult> fetchBatches(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait) {
    return readForFetch(namespace, stream, s, partition, offset, maxBytes, maxWait)
        .thenCompose(
            r -> {
              if (offset < r.startOffset()) {
                return sealed.fetchBatches(
                    namespace, stream, s.id(), partition, offset, maxBytes, r.highWatermark());
              }
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              long next = offset;
              for (byte[] b : r.batches()) {
                out.writeBytes(b);
                next = Math.max(next, entryOf(b, s, partition).endOffset());
              }
              return CompletableFuture.completedFuture(
                  new BatchFetchResult(
                      ByteBuffer.wrap(out.toByteArray()),
                      next,
                      r.highWatermark(),
                      sealed.logStart(s.id(), partition)));
            });
  }

  /**
   * The earliest offset retention kept (sealed segments included), or the high watermark; a
   * timestamp lookup answers the first batch whose newest record is at or after it, in the sealed
   * segments first, then in the replica's tail, else the high watermark (like the other classes, at
   * batch granularity).
   */
  public CompletableFuture<Long> listOffset(
      String namespace, String stream, StreamInfo s, int partition, OffsetSpec spec) {
    if (spec instanceof OffsetSpec.Earliest) {
      // Reached through the replica first, so a node that is no replica answers NOT_OWNER.
      return read(namespace, stream, s, partition, 0, 1, Duration.ZERO)
          .thenApply(r -> sealed.logStart(s.id(), partition));
    }
    if (spec instanceof OffsetSpec.ForTimestamp t) {
      return read(namespace, stream, s, partition, 0, 1, Duration.ZERO)
          .thenCompose(
              first ->
                  sealed
                      .forTimestamp(namespace, stream, s.id(), partition, t.millis())
                      .thenCompose(
                          inSegments ->
                              inSegments.isPresent()
                                  ? CompletableFuture.completedFuture(inSegments.getAsLong())
                                  : inTail(namespace, stream, s, partition, first, t.millis())));
    }
    return read(namespace, stream, s, partition, 0, 1, Duration.ZERO)
        .thenApply(QuorumRead::highWatermark);
  }

  /**
   * The first tail batch with a record at or after {@code ts}, else the high watermark. Should a
   * seal have moved the tail's start since {@code first} was read, the lookup starts over, in the
   * segments first.
   */
  private CompletableFuture<Long> inTail(
      String namespace, String stream, StreamInfo s, int partition, QuorumRead first, long ts) {
    return read(
            namespace, stream, s, partition, first.startOffset(), Integer.MAX_VALUE, Duration.ZERO)
        .thenCompose(
            r -> {
              if (first.startOffset() < r.startOffset()) {
                return listOffset(namespace, stream, s, partition, new OffsetSpec.ForTimestamp(ts));
              }
              for (byte[] b : r.batches()) {
                IndexEntry e = entryOf(b, s, partition);
                if (e.maxTimestamp() >= ts) {
                  return CompletableFuture.completedFuture(e.baseOffset());
                }
              }
              return CompletableFuture.completedFuture(r.highWatermark());
            });
  }

  /** See {@code Log#partitionLeader}: the journal's leader when known here, else a replica. */
  public Optional<String> leader(long streamId, int partition) {
    Optional<String> journal = ctx.meta().read(r -> r.journalOf(streamId, partition));
    if (journal.isEmpty()) {
      return Optional.empty();
    }
    String j = journal.get();
    if (host != null && host.replicates(j)) {
      Optional<String> l = host.leader(j);
      if (l.isPresent()) {
        return l;
      }
    }
    return Optional.ofNullable(ctx.meta().read(r -> pickReplica(r, j)));
  }

  /** A live replica of {@code journal}, one in this node's zone first; null if none is live. */
  private String pickReplica(MetaReader r, String journal) {
    List<String> replicas = r.journalReplicas(journal).orElse(List.of());
    String zone = r.node(ctx.nodeId()).map(NodeInfo::zone).orElse("");
    String pick = null;
    for (String id : replicas) {
      if (!r.nodeStatus(id).map(NodeStatus::live).orElse(false)) {
        continue;
      }
      String z = r.node(id).map(NodeInfo::zone).orElse("");
      if (!zone.isEmpty() && zone.equals(z)) {
        return id;
      }
      if (pick == null) {
        pick = id;
      }
    }
    return pick;
  }

  private static IndexEntry entryOf(byte[] b, StreamInfo s, int partition) {
    RecordBatch batch = RecordBatch.readFrom(ByteBuffer.wrap(b));
    return new IndexEntry(
        batch.baseOffset(),
        batch.lastOffsetDelta() + 1,
        "journal:" + JOURNAL + "/" + s.id() + "/" + partition,
        0,
        b.length,
        batch.maxTimestamp());
  }

  /**
   * {@link #read} for a fetch. The replica refuses an offset outside what it holds as INVALID; its
   * high watermark is then read to tell the cases apart: below the log start is out of range
   * ({@link OffsetOutOfRangeException} naming the log start and the high watermark, HTTP 416, as a
   * fetch of the other classes), past the replica's end waits for it ({@link #pastReplicaEnd}).
   */
  private CompletableFuture<QuorumRead> readForFetch(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait) {
    return read(namespace, stream, s, partition, offset, maxBytes, maxWait)
        .exceptionallyCompose(
            e -> {
              Throwable c =
                  e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                      ? e.getCause()
                      : e;
              if (!(c instanceof LoamException le) || le.kind() != Kind.INVALID) {
                return CompletableFuture.failedFuture(c);
              }
              return read(namespace, stream, s, partition, 0, 1, Duration.ZERO)
                  .thenCompose(
                      r -> {
                        long logStart = sealed.logStart(s.id(), partition);
                        if (offset < logStart) {
                          return CompletableFuture.failedFuture(
                              new OffsetOutOfRangeException(
                                  namespace,
                                  stream,
                                  partition,
                                  offset,
                                  logStart,
                                  r.highWatermark()));
                        }
                        if (offset > r.highWatermark()) {
                          return pastReplicaEnd(
                              namespace, stream, s, partition, offset, maxBytes, maxWait, r);
                        }
                        // Applied up to the offset meanwhile: read again.
                        return read(namespace, stream, s, partition, offset, maxBytes, maxWait);
                      });
            });
  }

  /**
   * A fetch past the end of this replica. No replica can tell an offset it has not applied yet from
   * one past the partition's end: the reader may have read further on another replica (a follower
   * applies a moment after the leader, a new leader after its predecessor, and a leader cut off
   * from the others does not know it was replaced), and an out-of-range answer would make
   * Kafka-style consumers reset their position. So it waits, as a long poll at the end does, for
   * this replica to apply more of the partition (up to {@code maxWait}), then reads there if it
   * caught up, else answers no records and the replica's high watermark: the reader asks again.
   */
  private CompletableFuture<QuorumRead> pastReplicaEnd(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      QuorumRead at) {
    long now = ctx.clock().millis();
    return waitPastEnd(
        namespace,
        stream,
        s,
        partition,
        offset,
        maxBytes,
        maxWait,
        now + maxWait.toMillis(),
        now,
        at,
        MAX_PAST_END_WAITS);
  }

  private CompletableFuture<QuorumRead> waitPastEnd(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait,
      long deadlineMillis,
      long startedMillis,
      QuorumRead at,
      int waitsLeft) {
    // The node's clock is a wall clock: no wait is longer than the fetch's own, and a clock that
    // went back (an NTP step) ends the waiting instead of stretching it.
    long left = Math.min(deadlineMillis - startedMillis, maxWait.toMillis());
    Duration wait = Duration.ofMillis(Math.max(0, left));
    return read(namespace, stream, s, partition, at.highWatermark(), 1, wait)
        .thenCompose(
            r -> {
              if (r.highWatermark() >= offset) {
                return read(namespace, stream, s, partition, offset, maxBytes, Duration.ZERO);
              }
              long now = ctx.clock().millis();
              if (waitsLeft > 1 && now >= startedMillis && now < deadlineMillis) {
                return waitPastEnd(
                    namespace,
                    stream,
                    s,
                    partition,
                    offset,
                    maxBytes,
                    maxWait,
                    deadlineMillis,
                    now,
                    r,
                    waitsLeft - 1);
              }
              return CompletableFuture.completedFuture(
                  new QuorumRead(List.of(), r.startOffset(), r.highWatermark()));
            });
  }

  private CompletableFuture<QuorumRead> read(
      String namespace,
      String stream,
      StreamInfo s,
      int partition,
      long offset,
      int maxBytes,
      Duration maxWait) {
    try {
      if (partition < 0 || partition >= s.config().partitions()) {
        throw new LoamException(
            Kind.INVALID,
            "partition out of range stream="
                + namespace
                + "/"
                + stream
                + " partition="
                + partition
                + " partitions="
                + s.config().partitions());
      }
      return localJournal(namespace, stream, s.id(), partition)
          .thenCompose(j -> host.read(j, s.id(), partition, offset, maxBytes, maxWait));
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The journal of the partition, when this node replicates it; otherwise NOT_OWNER naming a
   * replica to ask (one in this node's zone first), or UNAVAILABLE while the partition has no
   * journal yet. A journal placed on this node that it does not host yet (its placement agent has
   * not passed since) is hosted first.
   */
  private CompletableFuture<String> localJournal(
      String namespace, String stream, long streamId, int partition) {
    try {
      return localJournalNow(namespace, stream, streamId, partition);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private CompletableFuture<String> localJournalNow(
      String namespace, String stream, long streamId, int partition) {
    Optional<String> journal = ctx.meta().read(r -> r.journalOf(streamId, partition));
    if (journal.isEmpty()) {
      throw new LoamException(
          Kind.UNAVAILABLE,
          "the quorum partition is not placed on a journal yet stream="
              + namespace
              + "/"
              + stream
              + " partition="
              + partition);
    }
    String j = journal.get();
    if (host != null && host.replicates(j)) {
      return CompletableFuture.completedFuture(j);
    }
    boolean placedHere =
        host != null
            && ctx.meta().read(r -> r.journalReplicas(j).orElse(List.of()).contains(ctx.nodeId()));
    if (placedHere) {
      return host.placeNow()
          .thenApply(
              v -> {
                if (!host.replicates(j)) {
                  throw new LoamException(
                      Kind.UNAVAILABLE,
                      "the journal is placed on this node but not hosted yet journal="
                          + j
                          + " node="
                          + ctx.nodeId());
                }
                return j;
              });
    }
    throw ctx.meta()
        .read(
            r -> {
              List<String> replicas = r.journalReplicas(j).orElse(List.of());
              String pick = pickReplica(r, j);
              if (pick == null) {
                return new LoamException(
                    Kind.UNAVAILABLE,
                    "no live replica of the journal journal="
                        + j
                        + " replicas="
                        + replicas
                        + " stream="
                        + namespace
                        + "/"
                        + stream);
              }
              String addr =
                  r.node(pick)
                      .map(NodeInfo::advertisedAddress)
                      .map(a -> a == null ? "" : a)
                      .orElse("");
              return new NotOwnerException(
                  namespace,
                  stream,
                  pick,
                  addr,
                  "(a replica of journal=" + j + " partition=" + partition + ")");
            });
  }
}
