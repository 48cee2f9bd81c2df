package dev.loam.spi.quorum;

import dev.loam.meta.command.Outcome;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One node's part in the quorum class, started by the node runtime when the node is given a journal
 * address: the node's journal server (one Ratis server, every journal the node replicates a group
 * in it) and the agent that makes it follow the metastore's journal placement. Closed by the
 * runtime when the node stops.
 */
public interface QuorumHost extends AutoCloseable {
  /** The node endpoint name under which a node advertises its journal address. */
  String ENDPOINT = "journal";

  /** The journal address this node serves and advertises, {@code host:port}. */
  String address();

  /** The journals this node replicates now, sorted by name. */
  List<String> hostedJournals();

  /**
   * Runs one placement pass now (host the placed journals that name this node, and on the journals
   * it leads the partitions assigned to them), or joins the one in progress. Completes when the
   * pass ends; fails if a step of it failed (the next pass retries: every step is idempotent).
   */
  CompletableFuture<Void> placeNow();

  /** Whether this node is a replica of {@code journal} now. */
  boolean replicates(String journal);

  /** The journal's leader as this replica knows it, if any. */
  Optional<String> leader(String journal);

  /**
   * Appends one Kafka RecordBatch v2 to a partition of {@code journal}; this replica's Raft client
   * sends it to the journal's leader, and the answer is the journal state machine's verdict after a
   * majority of replicas has it on disk: APPENDED or DUPLICATE with the base offset, or
   * OUT_OF_ORDER_SEQUENCE, PRODUCER_FENCED, UNKNOWN_PARTITION.
   *
   * <p>Fails UNAVAILABLE if this node is not a replica of the journal (nothing sent) or the
   * journal's tail is full (retriable once sealing frees room), OUTCOME_UNKNOWN if no reply came
   * within the client's retries (it may be committed: retry the same batch).
   */
  CompletableFuture<Outcome.BatchResult> append(
      String journal, long streamId, int partition, byte[] batch);

  /**
   * Reads committed batches of a partition from this replica, from the batch holding {@code
   * fromOffset}, at most about {@code maxBytes} (at least one batch); when there is nothing at
   * {@code fromOffset} yet, waits up to {@code maxWait} for this replica to apply an append of that
   * partition. An offset below the replica's sealed offset answers at once with no batches and that
   * sealed offset as {@link QuorumRead#startOffset}: it is read from the segments. Fails
   * UNAVAILABLE if this node is not a replica, OFFSET_OUT_OF_RANGE past the high watermark.
   */
  CompletableFuture<QuorumRead> read(
      String journal,
      long streamId,
      int partition,
      long fromOffset,
      int maxBytes,
      Duration maxWait);

  /** Stops the placement agent and the journal server; acknowledged appends stay durable. */
  @Override
  void close();
}
