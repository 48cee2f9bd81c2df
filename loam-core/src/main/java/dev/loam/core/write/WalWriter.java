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
import java.util.List;
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
 * <p>Up to {@code maxObjectsInFlight} objects are PUT at once, but one commit proposal is with the
 * metastore at a time, and it carries the oldest objects: when the oldest object's PUT is done, it
 * is proposed together with the objects after it whose PUTs are also done, in order, as one
 * CommitWalGroup (one proposal, one fsync, one fate; a lone object goes as a CommitWal). So a
 * node's commits reach the sequencer in submission order (an idempotent producer's sequences stay
 * in order). A PUT or commit whose outcome is unknown is retried with the same keys (the sequencer
 * dedupes by object path) while each object's commit budget after its ULID time lasts: an object
 * whose budget runs out leaves the group and fails on its own, with {@link CommitUnknownException}
 * if its commit may have happened, never silently. Thread-safe: {@link #submit} may be called from
 * any thread; the flush steps run on the scheduler.
 *
 * <p>The parts: {@link WalBuffer} holds the batches of one future object, {@link WalObjectPlan}
 * lays them out as an object and its CommitWal, {@link WalFlight} PUTs it and hands out the
 * verdicts, {@link WalCommitGroup} proposes the commit of the oldest written objects, and {@link
 * WriteRetry} keeps the backoff and the budget. This class owns the buffers, the in-flight window
 * and the order of commits, and is the lock every part synchronises on.
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

  // Guarded by this.
  private WalBuffer current = new WalBuffer();
  private final ArrayDeque<WalBuffer> sealed = new ArrayDeque<>();
  // Objects being written or committed, oldest first; only a prefix of it is ever committing.
  private final ArrayDeque<WalFlight> inFlight = new ArrayDeque<>();
  // The group being proposed (or waiting out a retry backoff); null when none is.
  private WalCommitGroup committing;
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
   * {@link CommitUnknownException}, since their commit may still land. Acknowledged appends are
   * unaffected by definition. Completing a future twice is harmless: the first verdict wins.
   */
  public synchronized void abandon() {
    closed = true;
    abandoned = true;
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
      b.failAll(e);
    }
    for (WalFlight f : inFlight) {
      if (f.done) {
        continue; // its verdicts are being given (acknowledged or failed) by its own thread
      }
      String object = f.key == null ? "(not yet named)" : f.key;
      // Only a flight that handed a commit to the metastore without hearing a definite answer may
      // have committed; every other one never will (abandoned: it proposes nothing more).
      f.buffer.failAll(
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
                      + object));
    }
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
  // Their PUTs run in parallel; commits go one at a time in seal order (see commitNext).
  private void pump() {
    while (inFlight.size() < maxObjectsInFlight && !sealed.isEmpty()) {
      WalBuffer b = sealed.poll();
      WalFlight f = new WalFlight(this, b);
      inFlight.add(f);
      scheduler.execute(f::start);
    }
  }

  // Called with the lock held: once no group is committing and the oldest object's PUT is done, it
  // commits together with the written objects right after it, so a node's commits reach the
  // sequencer in submission order (idempotent sequences stay in order).
  private void commitNext() {
    if (committing != null) {
      return;
    }
    List<WalFlight> members = new ArrayList<>();
    for (WalFlight f : inFlight) {
      if (f.done) {
        continue; // failed on its own (e.g. its build); its slot is being freed
      }
      if (!f.written || f.committing || members.size() == CommitWalGroup.MAX_MEMBERS) {
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
    committing = g;
    scheduler.execute(() -> g.commit(0));
  }

  /** Frees the slot of {@code f}, which has its verdict, and starts what can start next. */
  synchronized void finished(WalFlight f) {
    bufferedBytes -= f.buffer.bytes;
    inFlight.remove(f);
    if (committing != null && committing.members.remove(f) && committing.members.isEmpty()) {
      committing = null;
    }
    commitNext();
    pump();
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
