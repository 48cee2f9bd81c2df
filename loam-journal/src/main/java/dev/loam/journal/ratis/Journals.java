package dev.loam.journal.ratis;

import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.state.JournalRead;
import dev.loam.journal.state.JournalState;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One node's replicas of its journals, as the node host, the placement driver and the sealer use
 * them: host a journal, propose an entry to its leader, read this replica's applied state, and know
 * who leads. {@link JournalServer} implements it over Apache Ratis; the deterministic simulation
 * implements it over a simulated Raft (docs/design/simulation.md "Quorum streams"), so that the
 * same node host, placement driver and sealer run in both.
 */
public interface Journals extends AutoCloseable {
  /** This node's id (its peer id in every journal). */
  String nodeId();

  /**
   * Makes this node a replica of {@code group}; a journal already hosted is left as it is.
   *
   * @throws dev.loam.error.LoamException INVALID if this node is not one of the group's replicas;
   *     UNAVAILABLE if the journals are closed or the group cannot be started
   */
  void host(JournalGroup group);

  /** Whether this node is a replica of {@code journal}. */
  boolean hosts(String journal);

  /**
   * Proposes {@code entry} to the journal's leader; completes with the result the state machine
   * gave once the entry is committed (on a majority's disks) and applied. Fails UNAVAILABLE if
   * nothing was sent, OUTCOME_UNKNOWN if no reply came within the retry budget (it may be
   * committed).
   */
  CompletableFuture<JournalResult> propose(String journal, JournalEntry entry);

  /** Reads one partition from this replica's applied state, as {@link JournalState#read}. */
  default JournalRead read(
      String journal, long streamId, int partition, long fromOffset, int maxBytes) {
    return query(journal, s -> s.read(streamId, partition, fromOffset, maxBytes));
  }

  /** The partition's high watermark on this replica, if the journal hosts it. */
  default OptionalLong highWatermark(String journal, long streamId, int partition) {
    return query(journal, s -> s.highWatermark(streamId, partition));
  }

  /**
   * Runs {@code q} against this replica's applied state of {@code journal}.
   *
   * @throws dev.loam.error.LoamException UNAVAILABLE if the journal is not on this node
   */
  <T> T query(String journal, Function<JournalState, T> q);

  /**
   * Calls {@code listener} with every entry this replica applies for {@code journal}, in log order
   * (it must not block), and after every reload of its state; closing the answer removes it.
   */
  AutoCloseable onApplied(String journal, JournalListener listener);

  /** Whether this replica leads {@code journal} now (and may propose as its leader). */
  boolean isLeader(String journal);

  /** The node id of the leader this replica knows, if any. */
  Optional<String> leader(String journal);

  /**
   * Asks this replica, the journal's leader, to hand leadership to the replica {@code nodeId}
   * (docs/design/quorum.md "Leader transfer"); completes once it did, fails when it could not
   * within {@code timeout}. Appends sent meanwhile are retried against the new leader.
   */
  CompletableFuture<Void> transferLeadership(String journal, String nodeId, Duration timeout);

  /**
   * Whether this replica leads the journal and heard from the replica {@code nodeId} within {@code
   * within}: a transfer to a replica that does not answer would only hold back new entries.
   */
  boolean heardFrom(String journal, String nodeId, Duration within);

  /**
   * Whether this replica has applied every entry it knows to be committed (on a leader: its state
   * reflects everything any earlier leader committed). False when the journal is not on this node.
   */
  boolean appliedAllCommitted(String journal);

  /** Stops this node's replicas; acknowledged entries stay durable on a majority. */
  @Override
  void close();
}
