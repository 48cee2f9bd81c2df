package dev.loam.meta.embedded;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.AppliedIndexWatch;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-node durable {@link Metastore}: a command log and snapshots in one local directory
 * (docs/design/metastore.md). Proposals are group-committed: one drain task on the injected
 * executor takes everything queued, writes the frames, forces the file once, then applies the
 * commands in order and completes their futures, so acknowledgement always follows fsync.
 *
 * <p>Failure policy (fail-stop): a log write, fsync or snapshot failure, or a bug in apply, stops
 * the metastore. The proposals of the batch being written fail with OUTCOME_UNKNOWN (their frames
 * may be on disk) and every later proposal fails with UNAVAILABLE naming the first failure, until
 * the metastore is closed and reopened; recovery then replays whatever the log durably holds. A
 * failed snapshot never deletes anything, so the previous snapshot and the log stay sufficient.
 *
 * <p>Thread-safe. Only one instance may open a directory at a time (a file lock on {@code LOCK}).
 */
public final class EmbeddedMetastore implements Metastore {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedMetastore.class);

  /** Drain rounds run back to back before the drain task yields its executor thread. */
  private static final int MAX_ROUNDS_PER_TASK = 16;

  /**
   * Tuning of the embedded metastore.
   *
   * @param maxPendingProposals proposals queued but not yet written; more fail with UNAVAILABLE
   * @param snapshotEveryCommands a snapshot is taken once this many commands were applied since the
   *     last one; the log files it covers are then deleted
   */
  public record Options(int maxPendingProposals, long snapshotEveryCommands) {
    public Options {
      if (maxPendingProposals < 1) {
        throw new IllegalArgumentException("maxPendingProposals=" + maxPendingProposals);
      }
      if (snapshotEveryCommands < 1) {
        throw new IllegalArgumentException("snapshotEveryCommands=" + snapshotEveryCommands);
      }
    }

    /** 10 000 pending proposals, a snapshot every 10 000 commands. */
    public static Options defaults() {
      return new Options(10_000, 10_000);
    }
  }

  private final Path dir;
  private final MetaSettings settings;
  private final Options options;
  private final InstantSource clock;
  private final Executor executor;
  private final long maxFutureStampMillis;
  private final MetaDisk disk;
  private final Closeable dirLock;
  private final MetaStateMachine machine;

  /** Guards {@link #machine}: apply takes the write lock, {@link #read} the read lock. */
  private final ReentrantReadWriteLock stateLock = new ReentrantReadWriteLock();

  /** Guards {@link #queue}, {@link #drainScheduled} and the transition to closed. */
  private final ReentrantLock queueLock = new ReentrantLock();

  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean drainScheduled;
  private volatile boolean closed;

  /** Held while a batch is written and applied; close() takes it to wait for that batch. */
  private final ReentrantLock drainLock = new ReentrantLock();

  /** The first fatal failure; once set, every proposal fails (fail-stop, see class Javadoc). */
  private volatile LoamException failure;

  // Owned by the drain task (under drainLock).
  private MetaDisk.LogFile logChannel;
  private Path logPath;
  private long lastLoggedIndex;
  private long lastSnapshotIndex;

  /** The applied index, its awaitApplied futures and the apply listeners. */
  private final AppliedIndexWatch watch;

  private record Pending(Command command, byte[] payload, CompletableFuture<Applied> future) {}

  private EmbeddedMetastore(
      Path dir,
      MetaSettings settings,
      Options options,
      InstantSource clock,
      Executor executor,
      MetaDisk disk,
      Closeable dirLock,
      Recovery.Result recovered) {
    this.dir = dir;
    this.settings = settings;
    this.options = options;
    this.clock = clock;
    this.executor = executor;
    this.maxFutureStampMillis = settings.maxFutureStamp().toMillis();
    this.disk = disk;
    this.dirLock = dirLock;
    this.machine = recovered.machine();
    this.logChannel = recovered.logFile();
    this.logPath = recovered.logPath();
    this.lastLoggedIndex = machine.appliedIndex();
    this.lastSnapshotIndex = recovered.snapshotIndex();
    this.watch = new AppliedIndexWatch(machine.appliedIndex());
  }

  /**
   * Opens (creating if needed) the metastore in {@code dir} and recovers its state: the newest
   * snapshot, then every logged command after it (docs/design/metastore.md "Recovery").
   *
   * @param clock used only for the future-stamp check of {@link #propose}
   * @param executor runs the drain task (writes, fsync, apply, listener calls, completions)
   * @throws LoamException UNAVAILABLE if another instance holds the directory or it cannot be read;
   *     CORRUPTION if the snapshot or the log is damaged beyond a torn tail
   */
  public static EmbeddedMetastore open(
      Path dir, MetaSettings settings, Options options, InstantSource clock, Executor executor) {
    return open(dir, settings, options, clock, executor, LocalDisk.INSTANCE);
  }

  /** {@link #open(Path, MetaSettings, Options, InstantSource, Executor)} on {@code disk}. */
  static EmbeddedMetastore open(
      Path dir,
      MetaSettings settings,
      Options options,
      InstantSource clock,
      Executor executor,
      MetaDisk disk) {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(executor, "executor");
    Closeable lock = null;
    try {
      disk.createDirectories(dir);
      lock = disk.tryLock(dir.resolve(LogFiles.LOCK_FILE));
      if (lock == null) {
        throw new LoamException(
            Kind.UNAVAILABLE, "metastore directory is already open elsewhere dir=" + dir);
      }
      Recovery.Result r = Recovery.run(disk, dir, settings);
      return new EmbeddedMetastore(dir, settings, options, clock, executor, disk, lock, r);
    } catch (IOException e) {
      closeQuietly(lock);
      throw new LoamException(Kind.UNAVAILABLE, "cannot open metastore dir=" + dir, e);
    } catch (RuntimeException e) {
      closeQuietly(lock);
      throw e;
    }
  }

  // ---- Metastore

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    Objects.requireNonNull(command, "command");
    LoamException unavailable = refusal();
    if (unavailable != null) {
      return CompletableFuture.failedFuture(unavailable);
    }
    // Refused before logging: one node with a fast clock must not push the metastore clock ahead
    // and make every later commit stale (stream-engine.txt §3 commit window). Judged against the
    // later of this clock and the metastore's (the largest stamp applied): a clock that stepped
    // back must not make the stamps of a true clock look like the future.
    long now = Math.max(clock.millis(), read(MetaReader::clockMillis));
    long stamp = command.origin().stampMillis();
    if (stamp > now + maxFutureStampMillis) {
      return CompletableFuture.completedFuture(
          new Applied(
              watch.appliedIndex(),
              new Outcome.Rejected(
                  Outcome.RejectReason.FUTURE_STAMP,
                  "command stamped too far ahead of the metastore's clock node="
                      + command.origin().nodeId()
                      + " stamp="
                      + stamp
                      + " clock="
                      + now
                      + " maxFutureStampMillis="
                      + maxFutureStampMillis)));
    }
    byte[] payload;
    try {
      payload = CommandCodec.encode(command);
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (payload.length > LogFiles.MAX_FRAME_PAYLOAD) {
      return CompletableFuture.failedFuture(
          new LoamException(
              Kind.INVALID,
              "command too large bytes=" + payload.length + " max=" + LogFiles.MAX_FRAME_PAYLOAD));
    }
    Pending p = new Pending(command, payload, new CompletableFuture<>());
    boolean schedule = false;
    queueLock.lock();
    try {
      unavailable = refusal();
      if (unavailable != null) {
        return CompletableFuture.failedFuture(unavailable);
      }
      if (queue.size() >= options.maxPendingProposals()) {
        return CompletableFuture.failedFuture(
            new LoamException(
                Kind.UNAVAILABLE,
                "metastore proposal queue is full maxPendingProposals="
                    + options.maxPendingProposals()
                    + " dir="
                    + dir));
      }
      queue.addLast(p);
      if (!drainScheduled) {
        drainScheduled = true;
        schedule = true;
      }
    } finally {
      queueLock.unlock();
    }
    if (schedule) {
      submitDrain();
    }
    return p.future();
  }

  /** Closed, or stopped after a failure (fail-stop); a single replica is its own majority. */
  @Override
  public java.util.Optional<String> unavailableReason() {
    LoamException r = refusal();
    return r == null ? java.util.Optional.empty() : java.util.Optional.of(r.getMessage());
  }

  private LoamException refusal() {
    if (closed) {
      return new LoamException(Kind.UNAVAILABLE, "metastore is closed dir=" + dir);
    }
    LoamException f = failure;
    if (f != null) {
      return new LoamException(
          Kind.UNAVAILABLE, "metastore stopped after a failure; reopen it dir=" + dir, f);
    }
    return null;
  }

  private void submitDrain() {
    try {
      executor.execute(this::drain);
    } catch (RejectedExecutionException e) {
      List<Pending> dropped;
      queueLock.lock();
      try {
        drainScheduled = false;
        dropped = new ArrayList<>(queue);
        queue.clear();
      } finally {
        queueLock.unlock();
      }
      LoamException err =
          new LoamException(Kind.UNAVAILABLE, "metastore executor rejected work dir=" + dir, e);
      dropped.forEach(p -> p.future().completeExceptionally(err));
    }
  }

  @Override
  public <T> T read(Function<MetaReader, T> query) {
    stateLock.readLock().lock();
    try {
      return query.apply(machine.reader());
    } finally {
      stateLock.readLock().unlock();
    }
  }

  @Override
  public long appliedIndex() {
    return watch.appliedIndex();
  }

  @Override
  public CompletableFuture<Void> awaitApplied(long index) {
    return watch.await(
        index,
        () ->
            closed
                ? new LoamException(
                    Kind.UNAVAILABLE, "metastore is closed dir=" + dir + " index=" + index)
                : null);
  }

  @Override
  public void addApplyListener(ApplyListener listener) {
    watch.addListener(listener);
  }

  /**
   * Stops accepting proposals, fails the queued ones and pending {@link #awaitApplied} futures with
   * UNAVAILABLE, waits for the batch being written (its proposals complete normally), then closes
   * the files and releases the directory. Idempotent.
   */
  @Override
  public void close() {
    List<Pending> dropped;
    queueLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      dropped = new ArrayList<>(queue);
      queue.clear();
    } finally {
      queueLock.unlock();
    }
    LoamException err = new LoamException(Kind.UNAVAILABLE, "metastore closed dir=" + dir);
    dropped.forEach(p -> p.future().completeExceptionally(err));
    drainLock.lock();
    try {
      closeQuietly(logChannel);
      closeQuietly(dirLock);
    } finally {
      drainLock.unlock();
    }
    watch.drain().forEach(f -> f.completeExceptionally(err));
  }

  // ---- the drain task (group commit)

  private void drain() {
    for (int round = 0; round < MAX_ROUNDS_PER_TASK; round++) {
      List<Runnable> completions = new ArrayList<>();
      drainLock.lock();
      try {
        List<Pending> batch;
        queueLock.lock();
        try {
          if (closed || queue.isEmpty()) {
            drainScheduled = false;
            return;
          }
          batch = new ArrayList<>(queue);
          queue.clear();
        } finally {
          queueLock.unlock();
        }
        try {
          processBatch(batch, completions);
        } catch (RuntimeException | Error e) {
          // Never leave a batch's futures hanging: stop, and tell them the outcome is unknown.
          fail("drain task failed", e);
          LoamException err =
              new LoamException(Kind.OUTCOME_UNKNOWN, "metastore drain failed dir=" + dir, e);
          batch.forEach(p -> completions.add(() -> p.future().completeExceptionally(err)));
        }
      } finally {
        drainLock.unlock();
        // Futures complete outside the drain lock, so a caller's continuation (even one that
        // calls close()) never runs inside a half-finished batch.
        completions.forEach(Runnable::run);
      }
    }
    submitDrain(); // drainScheduled stays true: yield the thread, then continue
  }

  private void processBatch(List<Pending> batch, List<Runnable> completions) {
    LoamException stopped = failure;
    if (stopped != null) {
      LoamException err =
          new LoamException(
              Kind.UNAVAILABLE, "metastore stopped after a failure; reopen it dir=" + dir, stopped);
      batch.forEach(p -> completions.add(() -> p.future().completeExceptionally(err)));
      return;
    }
    long firstIndex = lastLoggedIndex + 1;
    int bytes = 0;
    for (Pending p : batch) {
      bytes += LogFiles.FRAME_HEADER_BYTES + p.payload().length;
    }
    try {
      ByteBuffer buf = ByteBuffer.allocate(bytes);
      long index = firstIndex;
      for (Pending p : batch) {
        LogFiles.writeFrame(buf, index++, p.payload());
      }
      buf.flip();
      logChannel.write(buf);
      // One force per batch: the group commit. Acks follow it, so an unforced frame was never
      // acknowledged and recovery may drop it.
      logChannel.force();
    } catch (IOException | RuntimeException e) {
      fail("log write failed file=" + logPath, e);
      LoamException err =
          new LoamException(
              Kind.OUTCOME_UNKNOWN, "metastore log write failed; it may be logged dir=" + dir, e);
      batch.forEach(p -> completions.add(() -> p.future().completeExceptionally(err)));
      return;
    }
    lastLoggedIndex = firstIndex + batch.size() - 1;

    Outcome[] outcomes = new Outcome[batch.size()];
    List<CompletableFuture<Void>> ready = new ArrayList<>();
    int applied = 0;
    stateLock.writeLock().lock();
    try {
      for (; applied < batch.size(); applied++) {
        long index = firstIndex + applied;
        Command c = batch.get(applied).command();
        outcomes[applied] = machine.apply(index, c);
        ready.addAll(watch.advance(index));
        notifyListeners(index, c, outcomes[applied]);
      }
    } catch (RuntimeException e) {
      fail("apply failed index=" + (firstIndex + applied), e);
    } finally {
      stateLock.writeLock().unlock();
    }
    for (int i = 0; i < batch.size(); i++) {
      CompletableFuture<Applied> f = batch.get(i).future();
      if (i < applied) {
        Applied a = new Applied(firstIndex + i, outcomes[i]);
        completions.add(() -> f.complete(a));
      } else {
        LoamException err =
            new LoamException(
                Kind.OUTCOME_UNKNOWN, "metastore apply failed after logging dir=" + dir, failure);
        completions.add(() -> f.completeExceptionally(err));
      }
    }
    ready.forEach(f -> completions.add(() -> f.complete(null)));
    long appliedIndex = watch.appliedIndex();
    if (failure == null && appliedIndex - lastSnapshotIndex >= options.snapshotEveryCommands()) {
      try {
        snapshot();
      } catch (IOException | RuntimeException e) {
        fail("snapshot failed index=" + appliedIndex, e);
      }
    }
  }

  private void notifyListeners(long index, Command c, Outcome o) {
    watch.notifyApplied(
        index,
        c,
        o,
        // A listener's bug must not stop the metastore; it is logged, never swallowed silently.
        (l, e) -> LOG.error("apply listener failed index={} listener={}", index, l, e));
  }

  private void fail(String what, Throwable cause) {
    LOG.error("metastore stopping: {} dir={}", what, dir, cause);
    if (failure == null) {
      failure = new LoamException(Kind.UNAVAILABLE, what + " dir=" + dir, cause);
    }
  }

  /**
   * Writes a snapshot of the applied state, rolls to a new log file and deletes the files it
   * covers. Runs on the drain task, which is the only writer, so the state is read without the
   * write lock while readers keep reading.
   */
  private void snapshot() throws IOException {
    long index = machine.appliedIndex();
    byte[] bytes = machine.snapshot();
    Path target = dir.resolve(LogFiles.snapshotName(index));
    Path tmp = dir.resolve(LogFiles.snapshotName(index) + LogFiles.TMP_SUFFIX);
    disk.writeDurably(tmp, bytes);
    disk.moveAtomically(tmp, target);
    disk.syncDirectory(dir);
    lastSnapshotIndex = index;

    // Roll: the next frame starts a new file, so every older file is wholly covered.
    Path next = dir.resolve(LogFiles.logName(index + 1));
    MetaDisk.LogFile nextChannel = disk.open(next, true);
    MetaDisk.LogFile old = logChannel;
    logChannel = nextChannel;
    logPath = next;
    closeQuietly(old);
    disk.syncDirectory(dir);
    for (Map.Entry<Long, Path> e : LogFiles.logs(disk, dir).entrySet()) {
      if (e.getKey() <= index) {
        disk.deleteIfExists(e.getValue());
      }
    }
    for (Map.Entry<Long, Path> e : LogFiles.snapshots(disk, dir).entrySet()) {
      if (e.getKey() < index) {
        disk.deleteIfExists(e.getValue());
      }
    }
    disk.syncDirectory(dir);
    LOG.debug("metastore snapshot written index={} bytes={} dir={}", index, bytes.length, dir);
  }

  /** The index of the newest durable snapshot (0 if none); for tests and monitoring. */
  long lastSnapshotIndex() {
    drainLock.lock();
    try {
      return lastSnapshotIndex;
    } finally {
      drainLock.unlock();
    }
  }

  /** The directory this metastore owns. */
  public Path directory() {
    return dir;
  }

  /** The settings this metastore applies with. */
  public MetaSettings settings() {
    return settings;
  }

  private static void closeQuietly(Closeable ch) {
    if (ch == null) {
      return;
    }
    try {
      ch.close();
    } catch (IOException e) {
      LOG.warn("cannot close file", e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedMetastore{dir=" + dir + ", appliedIndex=" + watch.appliedIndex() + "}";
  }
}
