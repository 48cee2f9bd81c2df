package dev.loam.meta;

import dev.loam.meta.command.Command;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The replicated-meta SPI: a log of {@link Command}s applied in order by one deterministic {@code
 * MetaStateMachine} on every replica. The embedded implementation is single-node and durable on
 * local disk; the Ratis one replicates. Both, and the simulation's, run the same conformance kit.
 *
 * <p>Thread-safe. Failures arrive only through futures.
 */
public interface Metastore extends AutoCloseable {

  /**
   * Proposes a command and completes once it is durably logged and applied on this replica, with
   * the index it was applied at and its outcome (a rejection is an outcome, not a failure). A
   * command stamped more than the allowed skew ahead of this replica's clock is refused with {@code
   * FUTURE_STAMP} without being logged.
   *
   * <p>Fails with {@code LoamException} UNAVAILABLE (nothing was logged; retry is safe) or
   * OUTCOME_UNKNOWN (it may have been logged; retry with the same command, whose dedupe makes it
   * safe).
   *
   * <p>Order: commands are applied one at a time, each at the next index, but the SPI does not
   * promise that concurrent proposals, even from one thread, are applied in the order {@code
   * propose} was called (a retry inside a replicated implementation, or a network that delays one
   * request more than the next, reorders them). A caller that needs an order proposes the next
   * command only after the previous one completed, as the WAL writer does with its commits. The
   * embedded and Ratis implementations keep one thread's order when nothing fails; the simulated
   * one does not, so code above the SPI is tested against reordering.
   */
  CompletableFuture<Applied> propose(Command command);

  /** Runs a query against a consistent view of the local replica's state. */
  <T> T read(Function<MetaReader, T> query);

  /** The index of the last command applied on this replica. */
  long appliedIndex();

  /**
   * Completes once this replica has applied {@code index} (at once if it already has): read-your-
   * writes with a consistency token. Never blocks the caller.
   */
  CompletableFuture<Void> awaitApplied(long index);

  /**
   * Completes once this replica has applied every command committed anywhere before this call: a
   * read barrier (Raft's read index). For the rare answers a node must not give from a state that
   * may be behind, such as telling a reader its offset is past the end. Fails UNAVAILABLE when no
   * leader can confirm the index. The default, for a metastore that is its only replica, completes
   * at once.
   */
  default CompletableFuture<Void> awaitLatest() {
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Why this replica cannot commit now, or empty while it can (a momentary, cheap view that never
   * blocks): for example closed, stopped after a failure, or no metastore majority reachable. The
   * node's readiness ({@code LoamNode.health()}) and its WAL writers read it: a writer proposes no
   * commit while it names a reason, so a commit refused that way certainly wrote nothing.
   *
   * <p>The default answers empty: an implementation that cannot tell reports every failure through
   * its futures only.
   */
  default java.util.Optional<String> unavailableReason() {
    return java.util.Optional.empty();
  }

  /** Adds a listener told of every later apply. */
  void addApplyListener(ApplyListener listener);

  /** Stops the metastore; pending proposals fail with UNAVAILABLE or OUTCOME_UNKNOWN. */
  @Override
  void close();
}
