package dev.loam.core;

import dev.loam.meta.Metastore;
import dev.loam.meta.command.Origin;
import dev.loam.wal.ulid.UlidGenerator;
import java.time.InstantSource;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every component of one running node shares: its identity (id and the epoch of this process
 * start, constant for the runtime's life), the metastore, the clock, the ULID source and the
 * scheduler every step runs on. Built once by the node runtime and passed to each subsystem, so a
 * component's constructor names only what is its own.
 *
 * @param clusterId the cluster this node belongs to (its metastore's cluster id, checked against
 *     the store's {@link ClusterMarker} at start); every data key the node writes names it
 * @param nodeId the node's stable id
 * @param epoch the epoch this process start registered (ownership-and-routing.txt: a lower epoch is
 *     refused, which fences a zombie process)
 * @param meta the metastore every command is proposed to
 * @param clock the node's clock (injected; simulated under test)
 * @param ulids the node's ULID source for object keys
 * @param scheduler the executor the node's steps and timers run on
 */
public record NodeContext(
    String clusterId,
    String nodeId,
    long epoch,
    Metastore meta,
    InstantSource clock,
    UlidGenerator ulids,
    ScheduledExecutorService scheduler) {

  /** The stamp of a command proposed now: this node, at this epoch, on this node's clock. */
  public Origin origin() {
    return origin(clock.millis());
  }

  /** The stamp of a command proposed at {@code nowMillis} (a time the caller already read). */
  public Origin origin(long nowMillis) {
    return new Origin(nodeId, epoch, nowMillis);
  }
}
