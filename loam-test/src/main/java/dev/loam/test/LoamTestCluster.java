package dev.loam.test;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.StreamDescription;
import dev.loam.meta.Metastore;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.spi.store.ObjectStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A Loam cluster of N nodes in one JVM, for a host application's integration tests. Every node is a
 * real {@link LoamNode}; they share one object store (in memory, or a directory) and either
 *
 * <ul>
 *   <li>{@link Mode#RATIS} (the default): each node has its own {@link RatisMetastore} replica on a
 *       loopback port, as in production. Killing a node also kills its replica, so failover,
 *       elections and catch-up are real; or
 *   <li>{@link Mode#SHARED_METASTORE}: all nodes share one embedded single-node metastore. Starts
 *       in milliseconds and has no Raft threads; a killed node's metadata stays available. For
 *       tests of ownership, routing and the data path, not of metastore failover.
 * </ul>
 *
 * <p>Nodes are numbered from 0; node {@code i} has the id {@code n<i>} ({@link #nodeId}). {@link
 * #kill} crashes a node as a process crash would (buffered appends fail unacknowledged, its replica
 * closes); {@link #restart} brings it back from its directory. {@link #awaitReplicated} and {@link
 * #awaitVisible} let a test wait for an admin call made through one node to be visible on the
 * others. {@link #close} stops everything the cluster started and leaves no thread running
 * (docs/reference/testing.md "Threads").
 *
 * <pre>{@code
 * try (LoamTestCluster cluster = LoamTestCluster.builder().nodes(3).start()) {
 *   cluster.log(0).createNamespace("shop").join();
 *   cluster.log(0).createStream("shop", "orders", StreamSpec.standard(3)).join();
 *   cluster.awaitVisible("shop", "orders");
 *   cluster.log(1).append("shop", "orders", List.of(AppendRecord.of("k", "v"))).join();
 *   cluster.kill(cluster.metastoreLeader());
 * }
 * }</pre>
 *
 * <p>Waits are bounded by {@link Builder#timeout} and fail with {@link LoamTestClusterException}
 * naming what did not happen. Thread-safe for calls from a test and its callbacks; a node being
 * killed or restarted is not usable through {@link #node} until that call returns.
 */
public final class LoamTestCluster implements AutoCloseable {

  /** Where the nodes' metadata lives. */
  public enum Mode {
    /** One Apache Ratis replica per node, on loopback ports: production's replicated metastore. */
    RATIS,
    /** One embedded metastore shared by every node: fast, no Raft. */
    SHARED_METASTORE
  }

  private final ClusterRuntime runtime;

  LoamTestCluster(ClusterRuntime runtime) {
    this.runtime = runtime;
  }

  /** A builder with the defaults of {@link Builder}. */
  public static Builder builder() {
    return new Builder();
  }

  /** Starts {@code nodes} nodes with the defaults of {@link Builder}. */
  public static LoamTestCluster start(int nodes) {
    return builder().nodes(nodes).start();
  }

  /** How many nodes the cluster has, running or not. */
  public int size() {
    return runtime.size();
  }

  public Mode mode() {
    return runtime.config().mode();
  }

  /** The id of node {@code i}: {@code n<i>}. */
  public String nodeId(int i) {
    return runtime.member(i).id;
  }

  /**
   * Node {@code i}.
   *
   * @throws IllegalStateException if it is killed or stopped
   */
  public LoamNode node(int i) {
    return runtime.runningNode(i);
  }

  /** The {@link Log} of node {@code i}; as {@link #node}. */
  public Log log(int i) {
    return node(i).log();
  }

  /** Whether node {@code i} is running (started and not killed or stopped). */
  public boolean isRunning(int i) {
    return runtime.member(i).node != null;
  }

  /** The indexes of the running nodes, ascending. */
  public List<Integer> running() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < size(); i++) {
      if (isRunning(i)) {
        out.add(i);
      }
    }
    return out;
  }

  /**
   * The metastore node {@code i} runs on: its own replica in {@link Mode#RATIS}, the shared one in
   * {@link Mode#SHARED_METASTORE}.
   *
   * @throws IllegalStateException if it is killed or stopped (RATIS)
   */
  public Metastore metastore(int i) {
    return runtime.metastore(i);
  }

  /** The object store every node shares. */
  public ObjectStore objectStore() {
    return runtime.store();
  }

  /**
   * Crashes node {@code i}: its {@link LoamNode#crash()} (buffered appends fail with UNAVAILABLE,
   * never acknowledged) and, in {@link Mode#RATIS}, closes its replica. Its directories stay for
   * {@link #restart}. A no-op if it is not running.
   */
  public void kill(int i) {
    runtime.kill(i);
  }

  /**
   * Stops node {@code i} cleanly: {@link LoamNode#close()} (buffered appends get their verdicts)
   * and then its replica. A no-op if it is not running.
   */
  public void stop(int i) {
    runtime.stop(i);
  }

  /**
   * Restarts node {@code i} (killed or stopped) from its directories: its replica first, which
   * catches up from the others, then the node, which registers with a fresh epoch. Returns the new
   * node once its replica has applied everything committed before the call.
   *
   * @throws IllegalStateException if it is running
   * @throws LoamTestClusterException if it does not come up within the timeout
   */
  public LoamNode restart(int i) {
    return runtime.restart(i);
  }

  /**
   * The index of the node whose replica leads the metastore, once the running replicas agree there
   * is one.
   *
   * @throws IllegalStateException in {@link Mode#SHARED_METASTORE}, which has no leader
   * @throws LoamTestClusterException if no leader is elected within the timeout
   */
  public int metastoreLeader() {
    return runtime.leader();
  }

  /**
   * A consistency token for what node {@code i} has seen: the metastore index its replica has
   * applied. An admin call through node {@code i} that completed before this call is covered by it;
   * pass it to {@link #awaitReplicated(long)} to wait until every other node has it too.
   */
  public long consistencyToken(int i) {
    return metastore(i).appliedIndex();
  }

  /**
   * Returns once every running node's replica has applied metastore index {@code token} (a {@link
   * #consistencyToken}): from then on, every node reads what the token covered.
   *
   * @throws LoamTestClusterException if a replica does not get there within the timeout
   */
  public void awaitReplicated(long token) {
    runtime.awaitApplied(token);
  }

  /**
   * Returns once every running node's replica has applied everything the metastore committed before
   * the call (a linearizable read on each). An admin call that completed before it, through any
   * node, is then visible on every node.
   *
   * @throws LoamTestClusterException if a replica does not catch up within the timeout
   */
  public void awaitReplicated() {
    runtime.awaitInSync();
  }

  /**
   * Returns once {@code namespace/stream} is visible on every running node, with the description
   * the last of them gave. For a test that created the stream through one node and appends or reads
   * through another.
   *
   * @throws LoamTestClusterException if a node does not see it within the timeout
   */
  public StreamDescription awaitVisible(String namespace, String stream) {
    return runtime.awaitVisible(namespace, stream);
  }

  /** The bound of every wait of this cluster ({@link Builder#timeout}). */
  public Duration timeout() {
    return runtime.config().timeout();
  }

  /** Waits for {@code f} within {@link #timeout()}; fails naming {@code what}. */
  public <T> T await(CompletableFuture<T> f, String what) {
    return runtime.await(f, what);
  }

  /**
   * Stops every node (in parallel, cleanly), then every replica, the cluster's executors and the
   * store it created, and deletes the directories it created. When the last cluster of the JVM
   * closes, also stops Apache Ratis's JVM-wide timer threads (docs/reference/testing.md).
   * Idempotent.
   */
  @Override
  public void close() {
    runtime.close();
  }

  @Override
  public String toString() {
    return "LoamTestCluster{mode=" + mode() + " nodes=" + size() + " running=" + running() + "}";
  }

  /**
   * Configures a {@link LoamTestCluster}: plain values with the defaults listed on each method.
   * {@link #start()} validates them and fails with {@link IllegalArgumentException} naming the one
   * that is wrong.
   */
  public static final class Builder extends ClusterConfig.Builder<Builder> {
    Builder() {}

    /** Starts the cluster; returns once every node is registered and every replica in sync. */
    public LoamTestCluster start() {
      return new LoamTestCluster(ClusterRuntime.start(build()));
    }
  }
}
