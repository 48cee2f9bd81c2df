package dev.loam.test;

import dev.loam.api.NodeSettings;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.store.ObjectStore;
import dev.loam.test.LoamTestCluster.Mode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The validated settings of a {@link LoamTestCluster}.
 *
 * @param nodes how many nodes (1..{@value #MAX_NODES})
 * @param voters in RATIS mode, how many of them (the first ones) vote; the rest are Raft listeners,
 *     which keep a full replica but never count towards a majority
 * @param mode where the metadata lives
 * @param zones node {@code i} is in zone {@code zones[i % zones.size()]}; empty: no zone
 * @param storeDir the shared object store's directory; null: in memory
 * @param store a host's own store (not closed by the cluster); null: the cluster makes one
 * @param dataDir the replicas' and the shared metastore's directories; null: a temporary directory
 *     deleted on close
 * @param flushInterval how long a node buffers appends before it writes a WAL object
 * @param livenessTimeout how long a silent (killed) node keeps its streams before the others take
 *     them over
 * @param timeout the bound of every wait of the cluster
 * @param settingsTweak applied to each node's settings after the above
 * @param ratisTweak applied to each replica's Raft settings (RATIS mode)
 */
record ClusterConfig(
    int nodes,
    int voters,
    Mode mode,
    List<String> zones,
    Path storeDir,
    ObjectStore store,
    Path dataDir,
    Duration flushInterval,
    Duration livenessTimeout,
    Duration timeout,
    UnaryOperator<NodeSettings.Builder> settingsTweak,
    UnaryOperator<RatisSettings.Builder> ratisTweak) {

  /** Enough for any in-JVM test; each node costs about 40 threads in RATIS mode. */
  static final int MAX_NODES = 32;

  /** The default number of voters when there are more nodes: five tolerate two failures. */
  static final int DEFAULT_MAX_VOTERS = 5;

  ClusterConfig {
    if (nodes < 1 || nodes > MAX_NODES) {
      throw new IllegalArgumentException("nodes must be 1.." + MAX_NODES + ": " + nodes);
    }
    if (voters < 1 || voters > Math.min(nodes, RatisSettings.MAX_VOTERS)) {
      throw new IllegalArgumentException(
          "voters must be 1.."
              + Math.min(nodes, RatisSettings.MAX_VOTERS)
              + " (at most the node count and "
              + RatisSettings.MAX_VOTERS
              + "): "
              + voters);
    }
    Objects.requireNonNull(mode, "mode");
    zones = List.copyOf(zones);
    for (String z : zones) {
      if (z.isBlank()) {
        throw new IllegalArgumentException("a zone must not be blank zones=" + zones);
      }
    }
    if (storeDir != null && store != null) {
      throw new IllegalArgumentException(
          "give either a store directory or an object store, not both storeDir=" + storeDir);
    }
    positive(flushInterval, "flushInterval");
    positive(livenessTimeout, "livenessTimeout");
    if (livenessTimeout.toMillis() < 1000) {
      throw new IllegalArgumentException("livenessTimeout must be >= 1 s: " + livenessTimeout);
    }
    positive(timeout, "timeout");
    Objects.requireNonNull(settingsTweak, "settingsTweak");
    Objects.requireNonNull(ratisTweak, "ratisTweak");
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + d);
    }
  }

  /** The zone of node {@code i}, or null. */
  String zone(int i) {
    return zones.isEmpty() ? null : zones.get(i % zones.size());
  }

  /**
   * The builder behind {@link LoamTestCluster.Builder}.
   *
   * @param <B> the concrete builder, returned by every setter
   */
  abstract static class Builder<B extends Builder<B>> {
    private int nodes = 3;
    private int voters = -1;
    private Mode mode = Mode.RATIS;
    private List<String> zones = List.of();
    private Path storeDir;
    private ObjectStore store;
    private Path dataDir;
    private Duration flushInterval = Duration.ofMillis(5);
    private Duration livenessTimeout = Duration.ofSeconds(10);
    private Duration timeout = Duration.ofSeconds(30);
    private UnaryOperator<NodeSettings.Builder> settingsTweak = b -> b;
    private UnaryOperator<RatisSettings.Builder> ratisTweak = b -> b;

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /** How many nodes (3; 1..32). */
    public B nodes(int n) {
      this.nodes = n;
      return self();
    }

    /**
     * In RATIS mode, how many nodes vote (all of them up to 5, else 5; at most 9); the others are
     * Raft listeners. Fewer voters elect and commit faster.
     */
    public B voters(int n) {
      this.voters = n;
      return self();
    }

    /** Where the metadata lives ({@link Mode#RATIS}). */
    public B mode(Mode m) {
      this.mode = m;
      return self();
    }

    /** Spreads the nodes round-robin over these zones (none). */
    public B zones(String... zones) {
      this.zones = List.of(zones);
      return self();
    }

    /** Keeps the shared object store in memory (the default). */
    public B inMemoryStore() {
      this.storeDir = null;
      this.store = null;
      return self();
    }

    /** Keeps the shared object store in {@code dir} (a filesystem store; kept after close). */
    public B storeDirectory(Path dir) {
      this.storeDir = Objects.requireNonNull(dir, "dir");
      this.store = null;
      return self();
    }

    /** Shares the host's own store between the nodes; the cluster does not close it. */
    public B objectStore(ObjectStore s) {
      this.store = Objects.requireNonNull(s, "store");
      this.storeDir = null;
      return self();
    }

    /**
     * Keeps the replicas' (or the shared metastore's) directories under {@code dir}, kept after
     * close (a temporary directory, deleted on close). It must not hold an earlier cluster: the
     * replicas' ports are picked afresh at each start, and a Raft group keeps its members'
     * addresses in its log.
     */
    public B dataDirectory(Path dir) {
      this.dataDir = Objects.requireNonNull(dir, "dir");
      return self();
    }

    /** How long a node buffers appends before it writes them (5 ms: tests commit quickly). */
    public B flushInterval(Duration d) {
      this.flushInterval = d;
      return self();
    }

    /**
     * How long a killed node keeps its streams before another node takes them over (10 s, as in
     * production). A live node whose renewals cannot commit for this long, as in a metastore
     * failover on a loaded machine, is declared dead too and fenced: lower it only for a test that
     * waits for a takeover, and not below a few seconds.
     */
    public B livenessTimeout(Duration d) {
      this.livenessTimeout = d;
      return self();
    }

    /** The bound of every wait: start, restart, awaitReplicated, awaitVisible (30 s). */
    public B timeout(Duration d) {
      this.timeout = d;
      return self();
    }

    /** Adjusts every node's settings after the cluster set flush interval and zone. */
    public B settings(UnaryOperator<NodeSettings.Builder> tweak) {
      this.settingsTweak = Objects.requireNonNull(tweak, "tweak");
      return self();
    }

    /** Adjusts every replica's Raft settings (RATIS mode) after the cluster's own. */
    public B ratisSettings(UnaryOperator<RatisSettings.Builder> tweak) {
      this.ratisTweak = Objects.requireNonNull(tweak, "tweak");
      return self();
    }

    ClusterConfig build() {
      int v = voters != -1 ? voters : Math.min(Math.max(nodes, 1), DEFAULT_MAX_VOTERS);
      return new ClusterConfig(
          nodes,
          v,
          mode,
          zones,
          storeDir,
          store,
          dataDir,
          flushInterval,
          livenessTimeout,
          timeout,
          settingsTweak,
          ratisTweak);
    }
  }
}
