package dev.loam.core.write;

import dev.loam.api.CommitUnknownException;
import dev.loam.api.StaleCommitException;
import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.Rejections;
import dev.loam.core.read.TailCache;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectBuilder;
import dev.loam.wal.ulid.Ulid;
import dev.loam.wal.ulid.UlidGenerator;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 */
public final class WalWriter {
  private static final Logger log = LoggerFactory.getLogger(WalWriter.class);
  private static final long MAX_BACKOFF_MILLIS = 1000;

  /** Per batch, the sequencer's verdict and the index the commit was applied at. */
  public record BatchAck(
      BatchResult result, long appliedIndex, String objectKey, long byteOffset) {}

  private final String nodeId;
  private final NodeContext ctx;
  private final DurabilityClass durabilityClass;
  private final Duration flushInterval;
  private final int maxObjectBytes;
  private final long maxBufferedBytes;
  private final Duration commitBudget;
  private final Duration backoffInitial;
  private final ObjectStore store;
  private final Metastore meta;
  private final InstantSource clock;
  private final UlidGenerator ulids;
  private final ScheduledExecutorService scheduler;
  private final TailCache tailCache;
  private final WriteCounters stats;

  private final int maxObjectsInFlight;

  // Guarded by this.
  private Buffer current = new Buffer();
  private final ArrayDeque<Buffer> sealed = new ArrayDeque<>();
  // Objects being written or committed, oldest first; only a prefix of it is ever committing.
  private final ArrayDeque<Flight> inFlight = new ArrayDeque<>();
  // The group being proposed (or waiting out a retry backoff); null when none is.
  private CommitGroup committing;
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
      WriteCounters stats) {
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
  }

  /** A group of batches from one append call; completes when all of them have a verdict. */
  private static final class Submission {
    final CompletableFuture<List<BatchAck>> future = new CompletableFuture<>();
    final BatchAck[] acks;
    int remaining;

    Submission(int n) {
      acks = new BatchAck[n];
      remaining = n;
    }
  }

  private record Slot(PendingBatch batch, Submission owner, int index) {}

  private static final class Buffer {
    final List<Slot> slots = new ArrayList<>();
    long bytes;
    ScheduledFuture<?> timer;
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
    Submission sub = new Submission(batches.size());
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
        current.slots.add(new Slot(batches.get(i), sub, i));
      }
      current.bytes += size;
      bufferedBytes += size;
      if (current.bytes >= maxObjectBytes) {
        sealCurrent();
      } else if (current.timer == null) {
        Buffer b = current;
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
      for (Buffer b : sealed) {
        b.slots.forEach(s -> pending.add(s.owner().future));
      }
      for (Flight f : inFlight) {
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
    List<Buffer> all = new ArrayList<>(sealed);
    all.add(current);
    sealed.clear();
    current = new Buffer();
    for (Buffer b : all) {
      if (b.timer != null) {
        b.timer.cancel(false);
      }
      bufferedBytes -= b.bytes;
      failAll(b, e);
    }
    for (Flight f : inFlight) {
      if (f.done) {
        continue; // its verdicts are being given (acknowledged or failed) by its own thread
      }
      String object = f.key == null ? "(not yet named)" : f.key;
      // Only a flight that handed a commit to the metastore without hearing a definite answer may
      // have committed; every other one never will (abandoned: it proposes nothing more).
      failAll(
          f.buffer,
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

  private synchronized void sealIfCurrent(Buffer b) {
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
    current = new Buffer();
    generation++;
  }

  // Called with the lock held: starts sealed objects while fewer than the limit are in flight.
  // Their PUTs run in parallel; commits go one at a time in seal order (see commitNext).
  private void pump() {
    while (inFlight.size() < maxObjectsInFlight && !sealed.isEmpty()) {
      Buffer b = sealed.poll();
      Flight f = new Flight(b);
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
    List<Flight> members = new ArrayList<>();
    for (Flight f : inFlight) {
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
    for (Flight f : members) {
      f.committing = true;
    }
    CommitGroup g = new CommitGroup(members);
    committing = g;
    scheduler.execute(() -> g.commit(0));
  }

  private synchronized void finished(Flight f) {
    bufferedBytes -= f.buffer.bytes;
    inFlight.remove(f);
    if (committing != null && committing.members.remove(f) && committing.members.isEmpty()) {
      committing = null;
    }
    commitNext();
    pump();
  }

  private void failAll(Buffer b, Throwable e) {
    for (Slot s : b.slots) {
      s.owner().future.completeExceptionally(e);
    }
  }

  /** The state of one object in flight: its bytes, key, deadline and what is known so far. */
  private final class Flight {
    final Buffer buffer;
    Ulid ulid;
    String key;
    WalObject object;
    CommitWal.ChunkCommit[] chunks;
    int[][] slotOf; // [chunk][batch] -> slot index
    long deadlineMillis;
    long startMillis;
    boolean putUnknown;
    // Some attempt was handed to the metastore and got no definite answer.
    volatile boolean commitUnknown;
    // An attempt is with the metastore, unanswered.
    volatile boolean proposing;
    // The flight has its verdict (first one wins; later answers are ignored).
    boolean done;
    // Guarded by WalWriter.this.
    boolean written;
    boolean committing;

    Flight(Buffer buffer) {
      this.buffer = buffer;
    }

    /** Builds the object and starts its PUT. Runs on the scheduler. */
    void start() {
      try {
        build();
      } catch (RuntimeException e) {
        key = "(unbuilt)";
        fail(new LoamException(Kind.INTERNAL, "could not build WAL object node=" + nodeId, e));
        return;
      }
      put(0);
    }

    private void build() {
      long now = clock.millis();
      this.startMillis = now;
      this.ulid = ulids.next(now);
      this.key = ObjectLayout.walKey(durabilityClass, ctx.clusterId(), nodeId, ulid);
      this.deadlineMillis = ulid.timestampMillis() + commitBudget.toMillis();
      WalObjectBuilder builder = new WalObjectBuilder(nodeId, ulid, durabilityClass);
      int[] tickets = new int[buffer.slots.size()];
      for (int i = 0; i < tickets.length; i++) {
        PendingBatch p = buffer.slots.get(i).batch();
        tickets[i] = builder.add(p.streamId(), p.partition(), p.encoding(), p.bytes());
      }
      this.object = builder.build();
      // Group the slots by chunk in the object's own chunk order; within a chunk, slots keep
      // insertion order, which is also their byte order.
      Map<Long, List<Integer>> byChunk = new HashMap<>();
      for (int i = 0; i < tickets.length; i++) {
        PendingBatch p = buffer.slots.get(i).batch();
        byChunk
            .computeIfAbsent(chunkKey(p.streamId(), p.partition()), k -> new ArrayList<>())
            .add(i);
      }
      List<ChunkIndexEntry> index = object.chunks();
      chunks = new CommitWal.ChunkCommit[index.size()];
      slotOf = new int[index.size()][];
      for (int c = 0; c < index.size(); c++) {
        ChunkIndexEntry e = index.get(c);
        List<Integer> slots = byChunk.get(chunkKey(e.streamId(), e.partition()));
        List<BatchCommit> batches = new ArrayList<>(slots.size());
        slotOf[c] = new int[slots.size()];
        for (int j = 0; j < slots.size(); j++) {
          int si = slots.get(j);
          slotOf[c][j] = si;
          PendingBatch p = buffer.slots.get(si).batch();
          batches.add(
              new BatchCommit(
                  object.payloadOffset(tickets[si]),
                  p.bytes().length,
                  p.recordCount(),
                  p.maxTimestamp(),
                  p.producerId(),
                  p.producerEpoch(),
                  p.baseSequence()));
        }
        chunks[c] = new ChunkCommit(e.streamId(), e.partition(), batches);
      }
    }

    private long chunkKey(long streamId, int partition) {
      // Stream ids stay far below 2^40 and partitions below 2^20.
      return (streamId << 20) | partition;
    }

    void put(int attempt) {
      long t0 = clock.millis();
      store
          .create(key, object.bytes())
          .whenCompleteAsync(
              (v, e) -> {
                stats.recordPut(object.bytes().length, clock.millis() - t0);
                Throwable cause = e == null ? null : unwrap(e);
                if (e == null || (cause instanceof ObjectExistsException && putUnknown)) {
                  // (Exists after an attempt whose answer was lost: that attempt wrote it; ULIDs
                  // are unique per node, so the object is ours.)
                  written();
                  return;
                }
                if (cause instanceof LoamException le
                    && (le.kind() == Kind.UNAVAILABLE || le.kind() == Kind.OUTCOME_UNKNOWN)) {
                  putUnknown |= le.kind() == Kind.OUTCOME_UNKNOWN;
                  if (retry(attempt, () -> put(attempt + 1))) {
                    return;
                  }
                }
                // Nothing was committed: a PUT failure, whatever its kind, never reaches the
                // sequencer. An object that did land is an orphan for GC.
                fail(
                    new LoamException(
                        Kind.UNAVAILABLE,
                        "WAL object write failed after "
                            + (attempt + 1)
                            + " attempt(s) object="
                            + key,
                        cause));
              },
              scheduler);
    }

    private void written() {
      // Cache the batches before the commit, not after: a long-poll is woken when the metastore
      // applies the commit, which can run before this writer hears the answer, and would then miss
      // the cache and GET the object it just wrote. The bytes at (key, byteOffset) never change,
      // and a range is fetched only once the index references it, so caching an object whose
      // commit then fails is harmless (it ages out).
      for (int c = 0; c < chunks.length; c++) {
        for (int j = 0; j < slotOf[c].length; j++) {
          tailCache.put(
              key,
              chunks[c].batches().get(j).byteOffset(),
              buffer.slots.get(slotOf[c][j]).batch().bytes());
        }
      }
      synchronized (WalWriter.this) {
        written = true;
        commitNext();
      }
    }

    /** Whether a commit of this object may have been applied (or still may be). */
    boolean mayHaveCommitted() {
      return commitUnknown || proposing;
    }

    /** The metastore's answer for this object: committed, or refused (alone or with its group). */
    void onApplied(long index, Outcome outcome) {
      if (outcome instanceof Outcome.WalCommitted wc) {
        distribute(index, wc);
        return;
      }
      Outcome.Rejected r = (Outcome.Rejected) outcome;
      LoamException definite = Rejections.ofWalCommit(r, key);
      // A refusal proves nothing was committed only if no earlier attempt may have committed
      // (§3 commit window): its dedupe record could since have been pruned.
      fail(
          commitUnknown
              ? new CommitUnknownException(
                  "commit refused after an attempt with unknown outcome object=" + key, definite)
              : definite);
    }

    private void distribute(long index, Outcome.WalCommitted wc) {
      // Counted before any append hears its answer, so a caller reading the stats after its
      // acknowledgement sees the flush that carried it.
      if (!markDone()) {
        return;
      }
      stats.recordFlush(buffer.slots.size(), buffer.bytes, clock.millis() - startMillis);
      for (int c = 0; c < chunks.length; c++) {
        List<BatchResult> results = wc.chunks().get(c);
        for (int j = 0; j < slotOf[c].length; j++) {
          Slot s = buffer.slots.get(slotOf[c][j]);
          BatchResult r = results.get(j);
          long byteOffset = chunks[c].batches().get(j).byteOffset();
          resolve(s, new BatchAck(r, index, key, byteOffset));
        }
      }
      finished(this);
    }

    private void resolve(Slot s, BatchAck ack) {
      Submission sub = s.owner();
      boolean done;
      synchronized (sub) {
        sub.acks[s.index()] = ack;
        done = --sub.remaining == 0;
      }
      if (done) {
        sub.future.complete(List.of(sub.acks));
      }
    }

    private void fail(Throwable e) {
      if (!markDone()) {
        return;
      }
      log.warn("WAL flush failed object={}: {}", key, e.getMessage());
      failAll(buffer, e);
      finished(this);
    }

    /** Claims the verdict; false if this flight already has one. */
    private boolean markDone() {
      synchronized (WalWriter.this) {
        if (done) {
          return false;
        }
        done = true;
        return true;
      }
    }

    /** The CommitWal of this object, stamped with {@code origin}. */
    CommitWal command(dev.loam.meta.command.Origin origin) {
      return new CommitWal(
          origin, key, ulid.timestampMillis(), object.bytes().length, List.of(chunks));
    }

    /** Fails this object after its group's last attempt: unknown if an attempt may have landed. */
    void failCommit(String reason, Throwable cause) {
      fail(
          commitUnknown
              ? new CommitUnknownException(
                  "commit outcome unknown (an earlier attempt got no answer) and "
                      + reason
                      + " object="
                      + key,
                  cause)
              : new LoamException(
                  Kind.UNAVAILABLE, reason + "; nothing was appended object=" + key, cause));
    }

    /** Schedules {@code next} after a backoff unless the commit budget is spent. */
    private boolean retry(int attempt, Runnable next) {
      long backoff =
          Math.min(MAX_BACKOFF_MILLIS, backoffInitial.toMillis() << Math.min(attempt, 20));
      if (clock.millis() + backoff >= deadlineMillis) {
        return false;
      }
      scheduler.schedule(next, backoff, TimeUnit.MILLISECONDS);
      return true;
    }
  }

  /**
   * One commit proposal in flight: the oldest written objects, in order. Each attempt proposes the
   * members still within their commit budget (a CommitWal for one, a CommitWalGroup for more); an
   * answer reaches every member at once, and an unknown outcome marks every member unknown. The
   * members leave as they get their verdicts; the next group forms once all have.
   */
  private final class CommitGroup {
    // Guarded by WalWriter.this; the oldest first.
    final List<Flight> members;

    CommitGroup(List<Flight> members) {
      this.members = new ArrayList<>(members);
    }

    private List<Flight> live() {
      synchronized (WalWriter.this) {
        return new ArrayList<>(members);
      }
    }

    void commit(int attempt) {
      if (abandoned) {
        return;
      }
      long now = clock.millis();
      List<Flight> proposing = new ArrayList<>();
      for (Flight f : live()) {
        if (now < f.deadlineMillis) {
          proposing.add(f);
        } else if (attempt == 0) {
          // Waited behind older objects past the budget: no attempt was ever made, so nothing can
          // have been committed (§3: no new attempt after the budget).
          f.fail(
              new LoamException(
                  Kind.UNAVAILABLE,
                  "commit budget spent before the first attempt object=" + f.key));
        } else {
          f.failCommit("the commit budget ran out", null);
        }
      }
      if (proposing.isEmpty()) {
        return;
      }
      java.util.Optional<String> unreachable = meta.unavailableReason();
      if (unreachable.isPresent()) {
        // Not proposed: without a reachable majority a proposal could only wait out the budget,
        // and an attempt never handed to the metastore cannot have committed. Tried again after
        // the backoff (an election ends within about a second); a closing node stops waiting and
        // answers through abandon().
        if (retry(attempt)) {
          return;
        }
        for (Flight f : proposing) {
          f.failCommit(
              "the metastore has no reachable majority, the commit was never proposed: "
                  + unreachable.get(),
              null);
        }
        return;
      }
      dev.loam.meta.command.Origin origin = ctx.origin();
      List<CommitWal> commands = new ArrayList<>(proposing.size());
      for (Flight f : proposing) {
        commands.add(f.command(origin));
      }
      Command cmd = commands.size() == 1 ? commands.get(0) : new CommitWalGroup(origin, commands);
      long t0 = clock.millis();
      synchronized (WalWriter.this) {
        // Atomic with abandon(): it either sees these members as proposing (outcome unknown) or
        // this attempt sees it and proposes nothing.
        if (abandoned) {
          return;
        }
        for (Flight f : proposing) {
          f.proposing = true;
        }
      }
      meta.propose(cmd)
          .whenCompleteAsync(
              (applied, e) -> {
                stats.recordCommit(clock.millis() - t0);
                if (e == null) {
                  // Still "proposing" until the verdicts are claimed (markDone): a concurrent
                  // abandon() must not call an applied commit "nothing appended".
                  answer(proposing, applied);
                  return;
                }
                Throwable cause = unwrap(e);
                boolean definite =
                    cause instanceof LoamException le && le.kind() == Kind.UNAVAILABLE;
                synchronized (WalWriter.this) {
                  for (Flight f : proposing) {
                    f.commitUnknown |= !definite;
                    f.proposing = false;
                  }
                }
                if (!abandoned && retry(attempt)) {
                  return;
                }
                for (Flight f : proposing) {
                  f.failCommit(
                      definite ? "the metastore is unavailable" : "the commit budget ran out",
                      cause);
                }
              },
              scheduler);
    }

    /** Hands each member its own outcome; a refusal of the whole group reaches every member. */
    private void answer(List<Flight> proposed, Applied applied) {
      Outcome o = applied.outcome();
      if (o instanceof Outcome.WalGroupCommitted g) {
        for (int i = 0; i < proposed.size(); i++) {
          proposed.get(i).onApplied(applied.index(), g.members().get(i));
        }
      } else {
        for (Flight f : proposed) {
          f.onApplied(applied.index(), o);
        }
      }
    }

    /**
     * Schedules the next attempt after a backoff unless the oldest member's budget (the earliest
     * deadline) is spent; members past their own deadline then leave at the next attempt.
     */
    private boolean retry(int attempt) {
      List<Flight> now = live();
      if (now.isEmpty()) {
        return false;
      }
      long latest = Long.MIN_VALUE;
      for (Flight f : now) {
        latest = Math.max(latest, f.deadlineMillis);
      }
      long backoff =
          Math.min(MAX_BACKOFF_MILLIS, backoffInitial.toMillis() << Math.min(attempt, 20));
      if (clock.millis() + backoff >= latest) {
        return false;
      }
      scheduler.schedule(() -> commit(attempt + 1), backoff, TimeUnit.MILLISECONDS);
      return true;
    }
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
