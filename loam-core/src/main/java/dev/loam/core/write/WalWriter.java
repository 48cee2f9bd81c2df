package dev.loam.core.write;

import dev.loam.api.CommitUnknownException;
import dev.loam.api.StaleCommitException;
import dev.loam.core.NodeContext;
import dev.loam.core.read.TailCache;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.UlidGenerator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;

/**
 * The leaderless write path of one durability class on one node (stream-engine.txt §3): buffers the
 * batches of every partition until the flush interval or the object size limit, PUTs one WAL object
 * with create-if-absent, proposes one CommitWal, and completes each submission with its batches'
 * offsets.
 *
 * <p>Up to {@code maxObjectsInFlight} objects are PUT at once, and up to {@code maxCommitsInFlight}
 * commit proposals are with the metastore at once. Objects are proposed in seal order: when the
 * oldest object not yet proposed has its PUT done, it is proposed together with the objects after
 * it whose PUTs are also done, as one CommitWalGroup (one proposal, one fsync, one fate; a lone
 * object goes as a CommitWal). While earlier proposals are unanswered, a new one takes only objects
 * that write none of their partitions, so whatever order the metastore applies in-flight proposals
 * in (a refused one retried after a later one landed), each partition's commits from this node
 * reach the sequencer in submission order (an idempotent producer's sequences stay in order).
 * Verdicts are released in submission order: an object answered while an older one is unanswered
 * (its outcome unknown and being retried) holds its verdict until the older one has its own. A PUT
 * or commit whose outcome is unknown is retried with the same keys (the sequencer dedupes by object
 * path) while each object's commit budget after its ULID time lasts: an object whose budget runs
 * out leaves its group and fails on its own, with {@link CommitUnknownException} if its commit may
 * have happened, never silently. Thread-safe: {@link #submit} may be called from any thread; the
 * flush steps run on the scheduler.
 *
 * <p>The parts: {@link WalBuffer} holds the batches of one future object, {@link WalObjectPlan}
 * lays them out as an object and its CommitWal, {@link WalFlight} PUTs it and hands out the
 * verdicts, {@link WalCommitGroup} proposes the commit of a run of written objects, and {@link
 * WriteRetry} keeps the backoff and the budget. This class owns the buffers, the in-flight window,
 * the order of commits and the order of verdicts, and is the lock every part synchronises on.
 */
public final class WalWriter {
  /** Per batch, the sequencer's verdict and the index the commit was applied at. */
  public record BatchAck(
      BatchResult result, long appliedIndex, String objectKey, long byteOffset) {}

  final String nodeId;
  final NodeContext ctx;
  final DurabilityClass durabilityClass;
  private final Duration flushInterval;
  private final int maxObjectBytes;
  private final long maxBufferedBytes;
  final Duration commitBudget;
  final Duration backoffInitial;
  final ObjectStore store;
  final Metastore meta;
  final InstantSource clock;
  final UlidGenerator ulids;
  final ScheduledExecutorService scheduler;
  final TailCache tailCache;
  final WriteCounters stats;
  final RandomGenerator sealingRandom;

  private final int maxObjectsInFlight;
  private final int maxCommitsInFlight;

  // Guarded by this.
  private WalBuffer current = new WalBuffer();
  private final ArrayDeque<WalBuffer> sealed = new ArrayDeque<>();
  // Objects being written or committed or holding their verdict, oldest first; those committing
  // are a prefix of the ones without a verdict.
  private final ArrayDeque<WalFlight> inFlight = new ArrayDeque<>();
  // The proposals with the metastore (or waiting out a retry backoff), oldest first.
  private final List<WalCommitGroup> committing = new ArrayList<>();
  // Verdicts released in order and not yet run; delivering while a thread runs them.
  private final ArrayDeque<Runnable> deliveries = new ArrayDeque<>();
  private boolean delivering;
  private long bufferedBytes;
  private boolean closed;
  // Set once by abandon(): no flight proposes a commit after it.
  private volatile boolean abandoned;
  private long generation;

  public WalWriter(
      NodeContext ctx,
      DurabilityClass durabilityClass,
      Duration flushInterval,
      int maxObjectBytes,
      int maxObjectsInFlight,
      int maxCommitsInFlight,
      long maxBufferedBytes,
      Duration commitBudget,
      Duration backoffInitial,
      ObjectStore store,
      TailCache tailCache,
      WriteCounters stats,
      RandomGenerator sealingRandom) {
    this.ctx = ctx;
    this.nodeId = ctx.nodeId();
    this.durabilityClass = durabilityClass;
    this.flushInterval = flushInterval;
    this.maxObjectBytes = maxObjectBytes;
    this.maxObjectsInFlight = maxObjectsInFlight;
    this.maxCommitsInFlight = maxCommitsInFlight;
    this.maxBufferedBytes = maxBufferedBytes;
    this.commitBudget = commitBudget;
    this.backoffInitial = backoffInitial;
    this.store = store;
    this.meta = ctx.meta();
    this.clock = ctx.clock();
    this.ulids = ctx.ulids();
    this.scheduler = ctx.scheduler();
    this.tailCache = tailCache;
    this.stats = stats;
    this.sealingRandom = sealingRandom;
  }

  /**
   * The generation of the open buffer; it changes after each flush (the sticky partitioner moves on
   * then, as Kafka's does per batch).
   */
  public synchronized long generation() {
    return generation;
  }

  /**
   * Adds batches to the open buffer, all to the same WAL object. The future completes with one ack
   * per batch, in order, or fails with UNAVAILABLE (backpressure, closed, PUT failed), FENCED,
   * {@link StaleCommitException} or {@link CommitUnknownException}.
   */
  public CompletableFuture<List<BatchAck>> submit(List<PendingBatch> batches) {
    long size = 0;
    for (PendingBatch b : batches) {
      size += b.bytes().length;
    }
    WalBuffer.Submission sub = new WalBuffer.Submission(batches.size());
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            new LoamException(Kind.UNAVAILABLE, "node is closing node=" + nodeId));
      }
      if (bufferedBytes + size > maxBufferedBytes && bufferedBytes > 0) {
        return CompletableFuture.failedFuture(
            new LoamException(
                Kind.UNAVAILABLE,
                "write buffer full, retry later node="
                    + nodeId
                    + " bufferedBytes="
                    + bufferedBytes
                    + " maxBufferedBytes="
                    + maxBufferedBytes));
      }
      if (current.bytes > 0 && current.bytes + size > maxObjectBytes) {
        sealCurrent();
      }
      for (int i = 0; i < batches.size(); i++) {
        current.slots.add(new WalBuffer.Slot(batches.get(i), sub, i));
      }
      current.bytes += size;
      bufferedBytes += size;
      if (current.bytes >= maxObjectBytes) {
        sealCurrent();
      } else if (current.timer == null) {
        WalBuffer b = current;
        b.timer =
            scheduler.schedule(
                () -> sealIfCurrent(b), flushInterval.toNanos(), TimeUnit.NANOSECONDS);
      }
      pump();
    }
    return sub.future;
  }

  /** Seals the open buffer now and completes once everything submitted so far has a verdict. */
  public CompletableFuture<Void> flush() {
    List<CompletableFuture<?>> pending = new ArrayList<>();
    synchronized (this) {
      if (!current.slots.isEmpty()) {
        sealCurrent();
        pump();
      }
      for (WalBuffer b : sealed) {
        b.slots.forEach(s -> pending.add(s.owner().future));
      }
      for (WalFlight f : inFlight) {
        f.buffer.slots.forEach(s -> pending.add(s.owner().future));
      }
    }
    return CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
        .handle((v, e) -> null);
  }

  /** Refuses new submissions; what is buffered is still flushed. */
  public synchronized void closeForAppends() {
    closed = true;
  }

  /**
   * Stops as a crash would (or a close whose flush timed out): everything not yet handed to the
   * store fails with UNAVAILABLE (never written, so never committed); objects in flight fail with
   * {@link CommitUnknownException}, since their commit may still land. Verdicts already held
   * (answered objects behind an older unanswered one) are released as they are, with these
   * failures, all in submission order. Acknowledged appends are unaffected by definition.
   */
  public void abandon() {
    synchronized (this) {
      closed = true;
      abandoned = true;
      for (WalFlight f : inFlight) {
        if (f.done) {
          continue; // its verdict is held or being released
        }
        String object = f.key == null ? "(not yet named)" : f.key;
        // Only a flight that handed a commit to the metastore without hearing a definite answer
        // may have committed; every other one never will (abandoned: it proposes nothing more).
        Throwable e =
            f.mayHaveCommitted()
                ? new CommitUnknownException(
                    "node stopped while a commit of a WAL object was unanswered node="
                        + nodeId
                        + " object="
                        + object,
                    null)
                : new LoamException(
                    Kind.UNAVAILABLE,
                    "node stopped before the WAL object was committed; nothing was appended node="
                        + nodeId
                        + " object="
                        + object);
        f.done = true;
        f.verdict = () -> f.buffer.failAll(e);
      }
      committing.clear();
      releaseReady();
      LoamException e = new LoamException(Kind.UNAVAILABLE, "node stopped node=" + nodeId);
      List<WalBuffer> all = new ArrayList<>(sealed);
      all.add(current);
      sealed.clear();
      current = new WalBuffer();
      for (WalBuffer b : all) {
        if (b.timer != null) {
          b.timer.cancel(false);
        }
        bufferedBytes -= b.bytes;
        deliveries.add(() -> b.failAll(e));
      }
    }
    deliver();
  }

  private synchronized void sealIfCurrent(WalBuffer b) {
    if (b == current && !b.slots.isEmpty()) {
      sealCurrent();
      pump();
    }
  }

  // Called with the lock held.
  private void sealCurrent() {
    if (current.timer != null) {
      current.timer.cancel(false);
    }
    sealed.add(current);
    current = new WalBuffer();
    generation++;
  }

  // Called with the lock held: starts sealed objects while fewer than the limit are in flight.
  // Their PUTs run in parallel; commits go in seal order (see commitNext).
  private void pump() {
    while (inFlight.size() < maxObjectsInFlight && !sealed.isEmpty()) {
      WalBuffer b = sealed.poll();
      WalFlight f = new WalFlight(this, b);
      inFlight.add(f);
      scheduler.execute(f::start);
    }
  }

  // Called with the lock held: while fewer than maxCommitsInFlight proposals are out, the oldest
  // written objects not yet proposed go out as the next proposal, together with the written ones
  // right after them. Objects are proposed in seal order. While earlier proposals are unanswered,
  // a new one takes only objects that write none of their partitions: the metastore may apply
  // in-flight proposals in any order (a refused or lost one is retried after later ones landed),
  // and offsets and producer sequences are per partition, so only proposals over disjoint
  // partitions may overtake each other.
  private void commitNext() {
    while (committing.size() < maxCommitsInFlight) {
      Set<WalFlight.PartitionRef> busy = new HashSet<>();
      for (WalCommitGroup g : committing) {
        for (WalFlight f : g.members) {
          f.partitionsInto(busy);
        }
      }
      List<WalFlight> members = new ArrayList<>();
      for (WalFlight f : inFlight) {
        if (f.done || f.committing) {
          continue; // has its verdict (held or being released), or is in an earlier proposal
        }
        if (!f.written
            || members.size() == CommitWalGroup.MAX_MEMBERS
            || (!busy.isEmpty() && f.writesAny(busy))) {
          break;
        }
        members.add(f);
      }
      if (members.isEmpty()) {
        return;
      }
      for (WalFlight f : members) {
        f.committing = true;
      }
      WalCommitGroup g = new WalCommitGroup(this, members);
      committing.add(g);
      scheduler.execute(() -> g.commit(0));
    }
  }

  /**
   * Gives {@code f} its verdict unless it has one (the first wins; false then). The verdict is held
   * until every older flight's is released, so appends hear their answers in submission order: a
   * later object acknowledged while an older one's outcome is unknown waits until that one is
   * answered or its budget is spent.
   */
  boolean decide(WalFlight f, Runnable verdict) {
    synchronized (this) {
      if (f.done) {
        return false;
      }
      f.done = true;
      f.verdict = verdict;
      for (WalCommitGroup g : committing) {
        if (g.members.remove(f)) {
          if (g.members.isEmpty()) {
            committing.remove(g);
          }
          break;
        }
      }
      releaseReady();
      commitNext();
      pump();
    }
    deliver();
    return true;
  }

  // Called with the lock held: frees the slots of the oldest flights that have their verdicts and
  // queues those verdicts, oldest first.
  private void releaseReady() {
    while (!inFlight.isEmpty() && inFlight.peek().done) {
      WalFlight f = inFlight.poll();
      bufferedBytes -= f.buffer.bytes;
      deliveries.add(f.verdict);
    }
  }

  // Runs the queued verdicts in order, outside the lock, on one thread at a time.
  private void deliver() {
    while (true) {
      Runnable next;
      synchronized (this) {
        if (delivering || deliveries.isEmpty()) {
          return;
        }
        delivering = true;
        next = deliveries.poll();
      }
      try {
        next.run();
      } finally {
        synchronized (this) {
          delivering = false;
        }
      }
    }
  }

  /** Marks {@code f}'s PUT done and proposes its commit once the objects before it have theirs. */
  synchronized void written(WalFlight f) {
    f.written = true;
    commitNext();
  }

  /** Whether {@link #abandon} ran: no flight proposes a commit after it. */
  boolean abandoned() {
    return abandoned;
  }
}
