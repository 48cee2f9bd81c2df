package dev.loam.core.write;

import dev.loam.api.CommitUnknownException;
import dev.loam.core.ObjectLayout;
import dev.loam.core.Rejections;
import dev.loam.core.write.WalBuffer.Slot;
import dev.loam.core.write.WalWriter.BatchAck;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.wal.ulid.Ulid;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WAL object in flight on its {@link WalWriter}: builds it, PUTs it with create-if-absent
 * (retried with the same key while the commit budget lasts), and, once its commit proposal (made by
 * a {@link WalCommitGroup}) is answered, gives every batch its verdict, which the writer releases
 * once every older object's is released. It records what is known about the object's fate so that a
 * failure is reported as "nothing was appended" only when no attempt can have committed it, and as
 * {@link CommitUnknownException} otherwise.
 */
final class WalFlight {
  private static final Logger log = LoggerFactory.getLogger(WalFlight.class);

  private final WalWriter writer;
  final WalBuffer buffer;
  Ulid ulid;
  String key;
  long deadlineMillis;
  private WalObjectPlan plan;
  private long startMillis;
  private boolean putUnknown;
  // Some attempt was handed to the metastore and got no definite answer.
  volatile boolean commitUnknown;
  // An attempt is with the metastore, unanswered.
  volatile boolean proposing;
  // The flight has its verdict (first one wins; later answers are ignored). Guarded by the writer.
  boolean done;
  // The verdict, held until every older flight's is released. Guarded by the writer.
  Runnable verdict;
  // Guarded by the writer.
  boolean written;
  boolean committing;

  WalFlight(WalWriter writer, WalBuffer buffer) {
    this.writer = writer;
    this.buffer = buffer;
  }

  /** Builds the object and starts its PUT. Runs on the scheduler. */
  void start() {
    try {
      build();
    } catch (RuntimeException e) {
      key = "(unbuilt)";
      fail(new LoamException(Kind.INTERNAL, "could not build WAL object node=" + writer.nodeId, e));
      return;
    }
    put(0);
  }

  private void build() {
    long now = writer.clock.millis();
    this.startMillis = now;
    this.ulid = writer.ulids.next(now);
    this.key =
        ObjectLayout.walKey(writer.durabilityClass, writer.ctx.clusterId(), writer.nodeId, ulid);
    this.deadlineMillis = ulid.timestampMillis() + writer.commitBudget.toMillis();
    this.plan =
        WalObjectPlan.build(
            writer.nodeId, ulid, writer.durabilityClass, key, writer.sealingRandom, buffer.slots);
  }

  private void put(int attempt) {
    long t0 = writer.clock.millis();
    byte[] bytes = plan.object().bytes();
    writer
        .store
        .create(key, bytes)
        .whenCompleteAsync(
            (v, e) -> {
              writer.stats.recordPut(bytes.length, writer.clock.millis() - t0);
              Throwable cause = e == null ? null : WriteRetry.unwrap(e);
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
            writer.scheduler);
  }

  private void written() {
    // Cache the batches before the commit, not after: a long-poll is woken when the metastore
    // applies the commit, which can run before this writer hears the answer, and would then miss
    // the cache and GET the object it just wrote. The bytes at (key, byteOffset) never change,
    // and a range is fetched only once the index references it, so caching an object whose
    // commit then fails is harmless (it ages out).
    CommitWal.ChunkCommit[] chunks = plan.chunks();
    int[][] slotOf = plan.slotOf();
    for (int c = 0; c < chunks.length; c++) {
      for (int j = 0; j < slotOf[c].length; j++) {
        writer.tailCache.put(
            key,
            chunks[c].batches().get(j).byteOffset(),
            buffer.slots.get(slotOf[c][j]).batch().bytes());
      }
    }
    writer.written(this);
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
    writer.decide(this, () -> acknowledge(index, wc));
  }

  // Runs when the writer releases this flight's verdict, after every older flight's.
  private void acknowledge(long index, Outcome.WalCommitted wc) {
    // Counted before any append hears its answer, so a caller reading the stats after its
    // acknowledgement sees the flush that carried it.
    writer.stats.recordFlush(
        buffer.slots.size(), buffer.bytes, writer.clock.millis() - startMillis);
    CommitWal.ChunkCommit[] chunks = plan.chunks();
    int[][] slotOf = plan.slotOf();
    for (int c = 0; c < chunks.length; c++) {
      List<BatchResult> results = wc.chunks().get(c);
      for (int j = 0; j < slotOf[c].length; j++) {
        Slot s = buffer.slots.get(slotOf[c][j]);
        long byteOffset = chunks[c].batches().get(j).byteOffset();
        s.owner().record(s.index(), new BatchAck(results.get(j), index, key, byteOffset));
      }
    }
    // Chunks are in partition order; the appends complete in the order they were submitted.
    for (Slot s : buffer.slots) {
      s.owner().completeIfDone();
    }
  }

  /** Fails every batch of this object with {@code e}, unless it already has its verdict. */
  void fail(Throwable e) {
    writer.decide(
        this,
        () -> {
          log.warn("WAL flush failed object={}: {}", key, e.getMessage());
          buffer.failAll(e);
        });
  }

  /** Adds the (stream, partition) of every chunk of this object to {@code into}. */
  void partitionsInto(Set<PartitionRef> into) {
    for (CommitWal.ChunkCommit c : plan.chunks()) {
      into.add(new PartitionRef(c.streamId(), c.partition()));
    }
  }

  /** Whether some chunk of this object writes a partition in {@code busy}. */
  boolean writesAny(Set<PartitionRef> busy) {
    for (CommitWal.ChunkCommit c : plan.chunks()) {
      if (busy.contains(new PartitionRef(c.streamId(), c.partition()))) {
        return true;
      }
    }
    return false;
  }

  /** One partition of one stream. */
  record PartitionRef(long streamId, int partition) {}

  /** The CommitWal of this object, stamped with {@code origin}. */
  CommitWal command(Origin origin) {
    return new CommitWal(
        origin, key, ulid.timestampMillis(), plan.object().bytes().length, List.of(plan.chunks()));
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
    long backoff = WriteRetry.backoffMillis(writer.backoffInitial, attempt);
    if (!WriteRetry.startsBefore(writer.clock.millis(), backoff, deadlineMillis)) {
      return false;
    }
    writer.scheduler.schedule(next, backoff, TimeUnit.MILLISECONDS);
    return true;
  }
}
