package dev.loam.journal.ratis;

import dev.loam.error.CorruptionException;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.JournalResultCodec;
import dev.loam.journal.state.JournalState;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
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
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one journal's {@link JournalState} inside Ratis: every committed state-machine log entry is
 * a {@link JournalEntryCodec} entry, applied in log order; the reply is the {@link
 * JournalResultCodec} result. Snapshots are the state's snapshot bytes
 * (docs/formats/journal-snapshot-v1.md) in {@code snapshot.<term>_<index>} with its MD5 file, so
 * Ratis can purge its log and ship the snapshot to a lagging follower.
 *
 * <p>Apply, snapshot and reload run on this group's one Ratis state-machine-updater thread. Reads
 * take the read lock; apply and reload the write lock.
 *
 * <p>Failure policy (fail-stop, as the metastore's): an entry that cannot be decoded or applied, or
 * a snapshot that cannot be written, is thrown out of the Ratis callback, which stops this
 * replica's division; the other replicas continue. Nothing is logged and ignored: a replica that
 * skipped an entry would assign different offsets from then on.
 */
final class JournalStateMachine extends BaseStateMachine {
  private static final Logger LOG = LoggerFactory.getLogger(JournalStateMachine.class);

  /** Told of every applied entry, under the write lock, in log order, and of every reload. */
  interface Listener {
    void applied(JournalEntry entry, JournalResult result);

    /** The state was replaced by a snapshot's (start, or one installed from the leader). */
    void reloaded();
  }

  private final String journal;
  private final long maxUnsealedBytes;
  private final Listener listener;
  private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

  /** Guarded by {@link #lock}; replaced wholesale on snapshot install. */
  private JournalState state;

  JournalStateMachine(String journal, long maxUnsealedBytes, Listener listener) {
    this.journal = journal;
    this.maxUnsealedBytes = maxUnsealedBytes;
    this.listener = listener;
    this.state = new JournalState(maxUnsealedBytes);
  }

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    storage.init(raftStorage);
    getLifeCycle().startAndTransition(this::loadLatestSnapshot, IOException.class);
  }

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
   * Restores the newest snapshot (or the empty state). A damaged newest snapshot is a {@link
   * CorruptionException}: the log it would replay from was purged.
   */
  private void loadLatestSnapshot() throws IOException {
    deleteTempSnapshots();
    SingleFileSnapshotInfo latest = storage.loadLatestSnapshot();
    JournalState restored;
    TermIndex at;
    if (latest == null) {
      restored = new JournalState(maxUnsealedBytes);
      at = TermIndex.INITIAL_VALUE;
    } else {
      Path path = latest.getFile().getPath();
      try {
        restored = JournalState.restore(Files.readAllBytes(path), maxUnsealedBytes);
      } catch (CorruptionException e) {
        throw new CorruptionException(
            "journal snapshot is damaged journal=" + journal + " file=" + path, e);
      }
      at = latest.getTermIndex();
    }
    lock.writeLock().lock();
    try {
      state = restored;
      setLastAppliedTermIndex(at);
    } finally {
      lock.writeLock().unlock();
    }
    LOG.info("journal state loaded journal={} at={} snapshot={}", journal, at, latest);
    listener.reloaded();
  }

  private void deleteTempSnapshots() throws IOException {
    Path dir = storage.getSnapshotFile(0, 0).toPath().getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "snapshot.*.tmp")) {
      for (Path p : s) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    JournalEntry decoded =
        JournalEntryCodec.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
    JournalResult result;
    lock.writeLock().lock();
    try {
      // Thrown, not returned as a failed future: Ratis logs and skips a failed future, which
      // would let this replica diverge (class Javadoc).
      result = state.apply(decoded);
      updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      listener.applied(decoded, result);
    } finally {
      lock.writeLock().unlock();
    }
    return CompletableFuture.completedFuture(
        Message.valueOf(UnsafeByteOperations.unsafeWrap(JournalResultCodec.encode(result))));
  }

  /** Runs {@code query} against this replica's applied (hence committed) state. */
  <T> T read(Function<JournalState, T> query) {
    lock.readLock().lock();
    try {
      return query.apply(state);
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * Writes {@code snapshot.<term>_<index>}: the bytes to a temporary file, fsynced; its MD5 file;
   * an atomic rename; a directory fsync. Ratis purges its log up to the returned index afterwards,
   * so the snapshot is durable before this returns.
   */
  @Override
  public long takeSnapshot() {
    TermIndex at;
    byte[] bytes;
    lock.readLock().lock();
    try {
      at = getLastAppliedTermIndex();
      bytes = state.snapshot();
    } finally {
      lock.readLock().unlock();
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
      MD5Hash digest = MD5Hash.newInstance(MD5FileUtil.newMD5().digest(bytes));
      MD5FileUtil.saveMD5File(target, digest);
      Files.move(tmp, target.toPath(), StandardCopyOption.ATOMIC_MOVE);
      try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
        ch.force(true);
      }
      storage.updateLatestSnapshot(
          new SingleFileSnapshotInfo(new FileInfo(target.toPath(), digest), at));
    } catch (IOException | RuntimeException e) {
      // Never logged and ignored (Ratis would do that with an IOException): fail-stop.
      throw new UncheckedIOException(
          "journal snapshot failed journal=" + journal + " file=" + target,
          e instanceof IOException io ? io : new IOException(e));
    }
    LOG.debug("journal snapshot written journal={} at={} bytes={}", journal, at, bytes.length);
    return at.getIndex();
  }

  /** The newest snapshot's log index, or -1. */
  long latestSnapshotIndex() {
    SingleFileSnapshotInfo s = storage.getLatestSnapshot();
    return s == null ? -1 : s.getIndex();
  }
}
