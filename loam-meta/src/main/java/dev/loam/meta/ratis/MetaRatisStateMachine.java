package dev.loam.meta.ratis;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.InstantSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@link MetaStateMachine} inside Ratis: every committed state-machine log entry is a
 * {@link CommandCodec} command, applied at the next metastore index (the count of commands applied,
 * which is the same on every replica); the reply is that index and the {@link OutcomeCodec}
 * outcome. Snapshots are the state machine's own snapshot bytes
 * (docs/formats/metastore-snapshot.md, CRC-32C and versioned) in a file named the {@link
 * SimpleStateMachineStorage} way ({@code snapshot.<term>_<index>} plus its {@code .md5}), so Ratis
 * can ship it to a lagging follower.
 *
 * <p>Apply, snapshot and reload all run on the one Ratis state-machine-updater thread of this
 * replica. Readers take the read lock; apply and reload take the write lock.
 *
 * <p>Failure policy (fail-stop, as the embedded metastore): a command that cannot be decoded or
 * applied, or a snapshot that cannot be written, is thrown out of the Ratis callback. Ratis then
 * stops this replica's server (its updater catches the throwable and closes the server), the
 * failure is recorded through {@link Host#fatal} so every later proposal on this replica fails with
 * UNAVAILABLE naming it, and the other replicas continue. Nothing is logged and ignored. A write of
 * the Raft log itself that fails (the disk full, an I/O error) closes Ratis's log for good — the
 * replica can neither vote nor accept entries again until restarted — so {@link #notifyLogFailed}
 * records it the same way.
 */
final class MetaRatisStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(MetaRatisStateMachine.class);

  /** What the state machine tells its {@link RatisMetastore}. */
  interface Host {
    /** A command was applied; called under the write lock, in log order. */
    void applied(long index, Command command, Outcome outcome);

    /** Every command up to metastore index {@code index} is applied. */
    void appliedUpTo(long index);

    /** This replica must stop; called before the throwable reaches Ratis. */
    void fatal(String what, Throwable cause);
  }

  /**
   * Starts the message of a proposal the leader refused for its stamp; the proposer turns a reply
   * carrying it into a {@link Outcome.RejectReason#FUTURE_STAMP} outcome.
   */
  static final String FUTURE_STAMP_MARKER = "loam-future-stamp: ";

  private final MetaSettings settings;
  private final InstantSource clock;
  private final long maxFutureStampMillis;
  private final Host host;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ReentrantReadWriteLock stateLock = new ReentrantReadWriteLock();

  /** Guarded by {@link #stateLock}; replaced wholesale on snapshot install. */
  private MetaStateMachine machine;

  /**
   * @param clock this replica's wall clock, read only when it leads: to refuse proposals stamped
   *     more than {@link MetaSettings#maxFutureStamp} ahead of it
   */
  MetaRatisStateMachine(MetaSettings settings, InstantSource clock, Host host) {
    this.settings = settings;
    this.clock = clock;
    this.maxFutureStampMillis = settings.maxFutureStamp().toMillis();
    this.host = host;
    this.machine = new MetaStateMachine(settings);
  }

  // ---- lifecycle

  /**
   * Ratis closed this replica's log after a write failed (e.g. "No space left on device"); the
   * replica stops for good, so the failure is made fatal here rather than left to surface as "log
   * is CLOSED" on every later vote and append.
   */
  @Override
  public void notifyLogFailed(Throwable cause, LogEntryProto failedEntry) {
    String at =
        failedEntry == null
            ? ""
            : " term=" + failedEntry.getTerm() + " logIndex=" + failedEntry.getIndex();
    Throwable root = cause;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    host.fatal(
        "Raft log write failed"
            + at
            + ": "
            + cause.getMessage()
            + (root == cause ? "" : " (" + root.getMessage() + ")"),
        cause);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(this::loadLatestSnapshot, IOException.class);
  }

  /** Called by Ratis after pausing us to install a snapshot received from the leader. */
  @Override
  public void pause() {
    getLifeCycle().transition(LifeCycle.State.PAUSING);
    getLifeCycle().transition(LifeCycle.State.PAUSED);
  }

  @Override
  public void reinitialize() throws IOException {
    loadLatestSnapshot();
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  /**
   * Restores the newest snapshot in the state machine directory (or the empty state if there is
   * none). A damaged newest snapshot is a {@link CorruptionException}: older ones are useless since
   * the log they would need was purged.
   */
  private void loadLatestSnapshot() throws IOException {
    deleteTempSnapshots();
    SingleFileSnapshotInfo latest = storage.loadLatestSnapshot();
    MetaStateMachine restored;
    TermIndex at;
    if (latest == null) {
      restored = new MetaStateMachine(settings);
      at = TermIndex.INITIAL_VALUE;
    } else {
      Path path = latest.getFile().getPath();
      byte[] bytes = Files.readAllBytes(path);
      try {
        restored = MetaStateMachine.restore(bytes, settings);
      } catch (CorruptionException e) {
        throw new CorruptionException("metastore snapshot is damaged file=" + path, e);
      }
      at = latest.getTermIndex();
    }
    stateLock.writeLock().lock();
    try {
      machine = restored;
      setLastAppliedTermIndex(at);
    } finally {
      stateLock.writeLock().unlock();
    }
    LOG.info("metastore state loaded at={} snapshot={}", at, latest);
    host.appliedUpTo(restored.appliedIndex());
  }

  private void deleteTempSnapshots() throws IOException {
    Path dir = stateMachineDir();
    if (dir == null || !Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "snapshot.*.tmp")) {
      for (Path p : s) {
        Files.deleteIfExists(p);
      }
    }
  }

  private Path stateMachineDir() {
    // getSnapshotFile resolves inside the state machine directory Ratis gave us.
    return storage.getSnapshotFile(0, 0).toPath().getParent();
  }

  // ---- apply

  /**
   * Runs on the leader before a proposal is logged: refuses one stamped more than {@link
   * MetaSettings#maxFutureStamp} ahead of the leader's clock (or of the metastore clock, when that
   * is later) (stream-engine.txt §3: "the meta leader refuses commands stamped more than 60 s ahead
   * of its own clock"). The metastore clock is the highest stamp applied, so one node whose wall
   * clock stepped ahead would otherwise move it for everyone: every other node's commits would turn
   * stale and their renewals look late. The check needs the leader's clock, not the proposer's (the
   * proposer's is the fast one), so it is here and not in {@link RatisMetastore#propose}. A
   * proposal whose header does not decode is refused too: applying it would stop every replica.
   */
  @Override
  public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
    TransactionContext trx = super.startTransaction(request);
    String refusal;
    try {
      Origin o = CommandCodec.decodeOrigin(request.getMessage().getContent().toByteArray());
      long leaderClock = clock.millis();
      long metastoreClock = read(MetaReader::clockMillis);
      // The later of the two: a leader whose clock stepped back must not refuse every true stamp
      // (the metastore clock, the largest stamp applied, is near the true time while the other
      // nodes renew).
      long now = Math.max(leaderClock, metastoreClock);
      refusal =
          o.stampMillis() > now + maxFutureStampMillis
              ? FUTURE_STAMP_MARKER
                  + "command stamped too far ahead of the metastore leader's clock node="
                  + o.nodeId()
                  + " stamp="
                  + o.stampMillis()
                  + " leaderClock="
                  + leaderClock
                  + " metastoreClock="
                  + metastoreClock
                  + " maxFutureStampMillis="
                  + maxFutureStampMillis
              : null;
    } catch (CorruptionException e) {
      refusal = "undecodable metastore proposal: " + e.getMessage();
    }
    if (refusal != null) {
      trx.setException(new IOException(refusal));
    }
    return trx;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    long logIndex = entry.getIndex();
    long index;
    Outcome outcome;
    try {
      Command command =
          CommandCodec.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
      stateLock.writeLock().lock();
      try {
        // The metastore index is the command's position in the sequence of commands, not its Ratis
        // log index (docs/design/metastore-ratis.md "Indexes"): identical on every replica, dense.
        index = machine.appliedIndex() + 1;
        outcome = machine.apply(index, command);
        updateLastAppliedTermIndex(entry.getTerm(), logIndex);
        host.applied(index, command, outcome);
      } finally {
        stateLock.writeLock().unlock();
      }
    } catch (RuntimeException e) {
      // Thrown, not returned as a failed future: Ratis logs and skips a failed future, which would
      // let this replica diverge. A throwable stops this replica instead (class Javadoc).
      host.fatal("apply failed logIndex=" + logIndex, e);
      throw e;
    }
    host.appliedUpTo(index);
    return CompletableFuture.completedFuture(Message.valueOf(encodeReply(index, outcome)));
  }

  /** A proposal's reply: the metastore index (i64, big-endian), then the OutcomeCodec bytes. */
  static ByteString encodeReply(long index, Outcome outcome) {
    byte[] o = OutcomeCodec.encode(outcome);
    ByteBuffer b = ByteBuffer.allocate(Long.BYTES + o.length);
    b.putLong(index).put(o).flip();
    return UnsafeByteOperations.unsafeWrap(b);
  }

  /**
   * A linearizable read: Ratis calls this once this replica has applied the leader's read index, so
   * the caller may then read locally. The reply carries nothing.
   */
  @Override
  public CompletableFuture<Message> query(Message request) {
    ByteBuffer b = ByteBuffer.allocate(Long.BYTES);
    b.putLong(appliedIndex()).flip();
    return CompletableFuture.completedFuture(Message.valueOf(UnsafeByteOperations.unsafeWrap(b)));
  }

  /** The metastore index (commands applied) of this replica's state. */
  long appliedIndex() {
    stateLock.readLock().lock();
    try {
      return machine.appliedIndex();
    } finally {
      stateLock.readLock().unlock();
    }
  }

  <T> T read(Function<MetaReader, T> query) {
    stateLock.readLock().lock();
    try {
      return query.apply(machine.reader());
    } finally {
      stateLock.readLock().unlock();
    }
  }

  /** The state's snapshot bytes and the index of its last command; for tests. */
  byte[] snapshotBytes() {
    stateLock.readLock().lock();
    try {
      return machine.snapshot();
    } finally {
      stateLock.readLock().unlock();
    }
  }

  // ---- snapshots

  /**
   * Writes {@code snapshot.<term>_<index>}: the bytes to a temporary file, fsynced; its MD5 file
   * (for Ratis's transfer check and retention); an atomic rename; a directory fsync. Ratis purges
   * the log up to the returned index afterwards, so the snapshot must be durable before we return.
   */
  @Override
  public long takeSnapshot() {
    TermIndex at;
    byte[] bytes;
    stateLock.readLock().lock();
    try {
      at = getLastAppliedTermIndex();
      bytes = machine.snapshot();
    } finally {
      stateLock.readLock().unlock();
    }
    if (at == null || at.getIndex() <= 0) {
      return RaftLog.INVALID_LOG_INDEX;
    }
    File target = storage.getSnapshotFile(at.getTerm(), at.getIndex());
    try {
      Path dir = target.toPath().getParent();
      Files.createDirectories(dir);
      Path tmp = dir.resolve(target.getName() + ".tmp");
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        ByteBuffer buf = ByteBuffer.wrap(bytes);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      MessageDigest md5 = MD5FileUtil.newMD5();
      MD5Hash digest = MD5Hash.newInstance(md5.digest(bytes));
      MD5FileUtil.saveMD5File(target, digest);
      Files.move(tmp, target.toPath(), StandardCopyOption.ATOMIC_MOVE);
      fsyncDirectory(dir);
      storage.updateLatestSnapshot(
          new SingleFileSnapshotInfo(new FileInfo(target.toPath(), digest), at));
    } catch (IOException | RuntimeException e) {
      // Never logged and ignored (Ratis would do that with an IOException): fail-stop.
      host.fatal("snapshot failed file=" + target, e);
      throw new UncheckedIOException(
          "metastore snapshot failed file=" + target,
          e instanceof IOException io ? io : new IOException(e));
    }
    LOG.debug("metastore snapshot written at={} bytes={}", at, bytes.length);
    return at.getIndex();
  }

  private static void fsyncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** The newest snapshot's index, or -1; for tests and monitoring. */
  long latestSnapshotIndex() {
    SingleFileSnapshotInfo s = storage.getLatestSnapshot();
    return s == null ? -1 : s.getIndex();
  }
}
