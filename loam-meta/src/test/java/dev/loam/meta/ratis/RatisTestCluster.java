package dev.loam.meta.ratis;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.testing.LoopbackPorts;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A Raft group of {@link RatisMetastore}s in one JVM over real loopback sockets (free ports), one
 * directory per peer under {@code baseDir}. Peers can be stopped and restarted from their
 * directories. Test code: it waits with futures and timeouts, never sleeps.
 */
public final class RatisTestCluster implements AutoCloseable {
  static final long TIMEOUT_SECONDS = 30;

  private final Path baseDir;
  private final MetaSettings metaSettings;
  private final InstantSource clock;
  private final Executor executor;

  /** The configuration peers start with; replaced by {@link #reconfigure}. */
  private RatisSettings template;

  private final Map<String, RatisMetastore> members = new LinkedHashMap<>();

  private RatisTestCluster(
      Path baseDir,
      int voters,
      int listeners,
      MetaSettings metaSettings,
      InstantSource clock,
      Executor executor,
      UnaryOperator<RatisSettings.Builder> tweak) {
    this.baseDir = baseDir;
    this.metaSettings = metaSettings;
    this.clock = clock;
    this.executor = executor;
    Map<String, String> peers = new LinkedHashMap<>();
    for (int i = 1; i <= voters; i++) {
      peers.put("m" + i, newAddress());
    }
    Map<String, String> ls = new LinkedHashMap<>();
    for (int i = 1; i <= listeners; i++) {
      ls.put("l" + i, newAddress());
    }
    // A group of its own: the cluster ITs of this module run side by side in one JVM, and a port
    // one cluster released (a stopped peer, an address never started) can be taken by another
    // cluster's server, which would answer for the same group under the default group name.
    this.template =
        tweak
            .apply(
                testDefaults("m1", peers, baseDir.resolve("m1"))
                    .listeners(ls)
                    .groupName("test-" + CLUSTERS.incrementAndGet()))
            .build();
  }

  private static final java.util.concurrent.atomic.AtomicLong CLUSTERS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * A loopback socket bound to a port and not listening, for the address of a peer that is never
   * started: while it is open no other server can take the port, and connections to it are refused.
   */
  static java.net.Socket deadPort() {
    try {
      java.net.Socket s = new java.net.Socket();
      s.setReuseAddress(false);
      s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0));
      return s;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A loopback address with a free port, for a peer that joins later. */
  static String newAddress() {
    return "127.0.0.1:" + freePort();
  }

  /** Fast elections and short attempts, as suits loopback. */
  static RatisSettings.Builder testDefaults(String id, Map<String, String> peers, Path dir) {
    return RatisSettings.builder(id, peers, dir)
        .electionTimeout(Duration.ofMillis(200), Duration.ofMillis(400))
        .requestTimeout(Duration.ofSeconds(2))
        .retryInterval(Duration.ofMillis(50))
        .maxAttempts(100);
  }

  /** Starts every voter and waits until each has applied the first leader's entries. */
  static RatisTestCluster start(
      Path baseDir,
      int voters,
      MetaSettings metaSettings,
      InstantSource clock,
      Executor executor,
      UnaryOperator<RatisSettings.Builder> tweak) {
    return start(baseDir, voters, 0, metaSettings, clock, executor, tweak);
  }

  /** Starts voters m1..m{voters} and listeners l1..l{listeners}; waits as above. */
  static RatisTestCluster start(
      Path baseDir,
      int voters,
      int listeners,
      MetaSettings metaSettings,
      InstantSource clock,
      Executor executor,
      UnaryOperator<RatisSettings.Builder> tweak) {
    for (int attempt = 1; ; attempt++) {
      RatisTestCluster c =
          new RatisTestCluster(baseDir, voters, listeners, metaSettings, clock, executor, tweak);
      try {
        for (String id : c.template.voters().keySet()) {
          c.start(id);
        }
        for (String id : c.template.listeners().keySet()) {
          c.start(id);
        }
        c.awaitInSync();
        return c;
      } catch (RuntimeException | Error e) {
        c.close();
        // A "free" port can be taken by another socket between freePort() and the bind: start
        // over on fresh ports and empty directories (the group's addresses live in its log).
        if (attempt < 3 && LoopbackPorts.portTaken(e)) {
          List<String> ids = new ArrayList<>(c.template.voters().keySet());
          ids.addAll(c.template.listeners().keySet());
          for (String id : ids) {
            LoopbackPorts.deleteTree(baseDir.resolve(id));
          }
          continue;
        }
        throw e;
      }
    }
  }

  public static int freePort() {
    return LoopbackPorts.freePort();
  }

  RatisSettings settings(String id) {
    return template.forPeer(id, baseDir.resolve(id));
  }

  /** The voters of the configuration peers are started with. */
  Map<String, String> voters() {
    return template.voters();
  }

  /** The listeners of the configuration peers are started with. */
  Map<String, String> listeners() {
    return template.listeners();
  }

  /**
   * Peers started from now on name this configuration (the group's own configuration changes only
   * through {@link RatisMetastore#setConfiguration}).
   */
  void reconfigure(Map<String, String> voters, Map<String, String> listeners) {
    RatisSettings t = template;
    template = t.withPeers(voters.keySet().iterator().next(), voters, listeners);
  }

  /** Starts (or restarts from its directory) one peer. */
  RatisMetastore start(String id) {
    return start(id, clock);
  }

  /** Starts (or restarts) one peer whose wall clock is {@code peerClock} (a skewed node). */
  RatisMetastore start(String id, InstantSource peerClock) {
    // A restarted peer must bind the address the group knows it by; while it was down another
    // socket on the machine (often a short-lived client connection's ephemeral port) may hold
    // that port, so a restart waits for it to be free again. A first start that loses its port
    // is started over on fresh ports by the caller instead.
    boolean restart = java.nio.file.Files.exists(baseDir.resolve(id));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try {
        RatisMetastore m = RatisMetastore.start(settings(id), metaSettings, peerClock, executor);
        members.put(id, m);
        return m;
      } catch (RuntimeException e) {
        if (!restart || !LoopbackPorts.portTaken(e) || System.nanoTime() > deadline) {
          throw e;
        }
        try {
          Thread.sleep(200);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** Stops one peer (its directory stays). */
  void stop(String id) {
    RatisMetastore m = members.remove(id);
    if (m != null) {
      m.close();
    }
  }

  RatisMetastore member(String id) {
    return members.get(id);
  }

  List<RatisMetastore> members() {
    return new ArrayList<>(members.values());
  }

  List<String> ids() {
    return new ArrayList<>(members.keySet());
  }

  /**
   * A linearizable read through every running member: returns once a leader exists and each member
   * has applied everything committed before the call.
   */
  void awaitInSync() {
    for (RatisMetastore m : members.values()) {
      get(m.readLinearizable(r -> r.appliedIndex()));
    }
  }

  /** The current leader among the running members, after a linearizable read confirmed one. */
  RatisMetastore leader() {
    awaitInSync();
    for (int attempt = 0; attempt < 1000; attempt++) {
      for (RatisMetastore m : members.values()) {
        if (m.isLeader()) {
          return m;
        }
      }
      // Leadership moved between the read and the check: confirm a leader again.
      awaitInSync();
    }
    throw new AssertionError("no leader among " + members.keySet());
  }

  public static <T> T get(java.util.concurrent.CompletableFuture<T> f) {
    try {
      return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("timed out or failed", e);
    }
  }

  @Override
  public void close() {
    closeAll(members.values());
    members.clear();
  }

  /** Closes replicas in parallel: a Ratis server takes most of a second to stop. */
  public static void closeAll(java.util.Collection<RatisMetastore> ms) {
    List<Thread> threads = new ArrayList<>();
    for (RatisMetastore m : ms) {
      Thread t = new Thread(m::close, "close-" + m.peerId());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
