package dev.loam.journal.ratis;

import dev.loam.error.CorruptionException;
import dev.loam.meta.ratis.internal.RaftMetaGuard;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.storage.RaftStorage;

/**
 * The {@link RaftMetaGuard} of every journal a {@link JournalServer} hosts (docs/design/quorum.md
 * "A replica's term and vote"): each journal is a Raft group with its own {@code raft-meta} (term
 * and vote), which Ratis empties when its rewrite fails on a full disk. A journal's guard is
 * started when its division runs (recovered at start or hosted later), checks the file once a
 * second and reports a loss once; the server then stops that division and, once it stopped, repairs
 * the file. A journal whose division was stopped stays stopped until the server restarts. At start,
 * before Ratis reads them, a journal whose file holds no term and vote is refused as corruption
 * naming the file.
 *
 * <p>Thread-safe.
 */
final class JournalMetaGuards {
  /** How long a repair retries while the disk refuses the write. */
  static final long REPAIR_BUDGET_MILLIS = 5_000;

  private final String nodeId;
  private final Map<RaftGroupId, RaftMetaGuard> guards = new ConcurrentHashMap<>();
  private final Set<RaftGroupId> stopped = ConcurrentHashMap.newKeySet();

  JournalMetaGuards(String nodeId) {
    this.nodeId = nodeId;
  }

  /**
   * Refuses to start on a storage directory where a journal's term and vote are lost: a replica
   * that forgot its vote could vote twice in one term.
   *
   * @throws CorruptionException naming the file and the remedy
   */
  static void checkAtStart(Path storageDir, String nodeId) {
    if (!Files.isDirectory(storageDir)) {
      return;
    }
    List<Path> groups;
    try (Stream<Path> s = Files.list(storageDir)) {
      groups = s.filter(Files::isDirectory).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the journal directory " + storageDir, e);
    }
    for (Path group : groups) {
      Optional<String> lost = RaftMetaGuard.problem(group);
      if (lost.isPresent()) {
        throw new CorruptionException(
            "a journal replica's Raft term and vote are lost node="
                + nodeId
                + " group="
                + group.getFileName()
                + ": "
                + lost.get()
                + ". Restore the file with the term and votedFor this replica last held (a replica"
                + " stopped after losing it logged them), or remove this node from the journal and"
                + " add it back with an empty directory");
      }
    }
  }

  /**
   * Starts guarding a running division's storage; {@code onLost} is called once, from a timer
   * thread (it must not block), with a description of the lost file.
   */
  void guard(RaftGroupId id, RaftStorage storage, Consumer<String> onLost) {
    guards.computeIfAbsent(
        id, g -> RaftMetaGuard.start(storage, nodeId + "/" + id.getUuid(), onLost));
  }

  /** Records that {@code id}'s division was stopped for a lost file: it is not hosted again. */
  void markStopped(RaftGroupId id) {
    stopped.add(id);
  }

  /** Whether {@code id}'s division was stopped for a lost file since this server started. */
  boolean stopped(RaftGroupId id) {
    return stopped.contains(id);
  }

  /**
   * After {@code id}'s division stopped: stops its guard and rewrites its file with what Ratis last
   * persisted if it holds no term and vote. Returns what it did ("" if the file was sound). Repairs
   * run one at a time, so a close that repairs every file waits for one in progress.
   */
  synchronized String repair(RaftGroupId id) {
    RaftMetaGuard g = guards.remove(id);
    return g == null ? "" : g.repairAfterClose(REPAIR_BUDGET_MILLIS);
  }

  /** After the server closed: repairs every guarded journal's file that needs it. */
  synchronized void repairAll() {
    for (RaftGroupId id : List.copyOf(guards.keySet())) {
      repair(id);
    }
  }
}
