package dev.loam.test;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamDescription;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.fs.FileSystemObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.test.LoamTestCluster.Mode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a {@link LoamTestCluster} runs: its members, the shared store and metastore, the executors,
 * and the order in which they start and stop. Kept apart from the public class so that its API page
 * stays short.
 */
final class ClusterRuntime {
  /** Start attempts on fresh ports when a port picked as free was taken before the bind. */
  private static final int PORT_ATTEMPTS = 3;

  private static final AtomicInteger CLUSTERS = new AtomicInteger();

  /** One node: its fixed identity and its current replica and node, if running. */
  static final class Member {
    final int index;
    final String id;
    final RatisSettings ratis;
    volatile RatisMetastore replica;
    volatile LoamNode node;

    Member(int index, String id, RatisSettings ratis) {
      this.index = index;
      this.id = id;
      this.ratis = ratis;
    }
  }

  private final ClusterConfig config;
  private final String name;
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final InstantSource clock = InstantSource.system();
  private final ExecutorService metaExecutor;
  private final ExecutorService ioExecutor;
  private final ObjectStore store;
  private final boolean ownsStore;
  private final List<Member> members = new ArrayList<>();
  private volatile EmbeddedMetastore shared;
  private final ClusterWaits waits;
  private boolean closed;
  private boolean holdsRatisThreads;

  private ClusterRuntime(ClusterConfig config, Path dataDir, boolean ownsDataDir) {
    this.config = config;
    this.name = "loam-test-" + CLUSTERS.incrementAndGet();
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.metaExecutor = Executors.newFixedThreadPool(4, daemon(name + "-meta"));
    this.ioExecutor = Executors.newFixedThreadPool(4, daemon(name + "-io"));
    this.waits = new ClusterWaits(config, members, () -> shared);
    if (config.store() != null) {
      this.store = config.store();
      this.ownsStore = false;
    } else if (config.storeDir() != null) {
      this.store = new FileSystemObjectStore(config.storeDir(), ioExecutor, clock);
      this.ownsStore = true;
    } else {
      this.store = new InMemoryObjectStore(clock);
      this.ownsStore = true;
    }
    Map<String, String> voters = new LinkedHashMap<>();
    Map<String, String> listeners = new LinkedHashMap<>();
    for (int i = 0; i < config.nodes(); i++) {
      String address = "127.0.0.1:" + LoopbackPorts.freePort();
      (i < config.voters() ? voters : listeners).put("n" + i, address);
    }
    for (int i = 0; i < config.nodes(); i++) {
      String id = "n" + i;
      RatisSettings ratis =
          config.mode() == Mode.RATIS
              ? config
                  .ratisTweak()
                  .apply(
                      RatisSettings.builder(id, voters, dataDir.resolve(id))
                          .listeners(listeners)
                          .electionTimeout(
                              java.time.Duration.ofMillis(300), java.time.Duration.ofMillis(600))
                          .requestTimeout(java.time.Duration.ofSeconds(3))
                          .retryInterval(java.time.Duration.ofMillis(50))
                          .maxAttempts(100))
                  .build()
              : null;
      members.add(new Member(i, id, ratis));
    }
  }

  /** Starts a cluster, on fresh ports again if a port was taken between picking and binding. */
  static ClusterRuntime start(ClusterConfig config) {
    Path dir = config.dataDir();
    boolean owns = dir == null;
    try {
      if (owns) {
        dir = Files.createTempDirectory("loam-test-");
      } else {
        Files.createDirectories(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the cluster's directory dir=" + dir, e);
    }
    for (int attempt = 1; ; attempt++) {
      ClusterRuntime c = new ClusterRuntime(config, dir, owns);
      try {
        c.startAll();
        return c;
      } catch (RuntimeException | Error e) {
        c.close(attempt >= PORT_ATTEMPTS || !LoopbackPorts.portTaken(e));
        if (attempt < PORT_ATTEMPTS && LoopbackPorts.portTaken(e)) {
          // The group's addresses live in the replicas' logs: start over in empty directories.
          for (Member m : c.members) {
            LoopbackPorts.deleteTree(dir.resolve(m.id));
          }
          continue;
        }
        throw e;
      }
    }
  }

  private void startAll() {
    if (config.mode() == Mode.RATIS) {
      RatisThreads.acquire();
      holdsRatisThreads = true;
      for (Member m : members) {
        m.replica = RatisMetastore.start(m.ratis, MetaSettings.defaults(), clock, metaExecutor);
      }
      // Elect a leader, known to every replica, before any node registers: a replica's proposal
      // client is built on first use and addresses the leader known then; a registration sent
      // during the election, or to a follower, is redirected by the Ratis client, which logs each
      // redirect at ERROR.
      waits.awaitAgreedLeader();
      awaitInSync();
    } else {
      shared =
          EmbeddedMetastore.open(
              dataDir.resolve("meta"),
              MetaSettings.defaults(),
              EmbeddedMetastore.Options.defaults(),
              clock,
              metaExecutor);
    }
    // The nodes start in parallel: each registers and loads the catalog on its own.
    List<CompletableFuture<LoamNode>> starting = new ArrayList<>();
    for (Member m : members) {
      starting.add(nodeBuilder(m).startAsync());
    }
    LoamTestClusterException failure = null;
    for (int i = 0; i < members.size(); i++) {
      try {
        members.get(i).node = await(starting.get(i), "node " + members.get(i).id + " to start");
      } catch (LoamTestClusterException e) {
        // Close whatever still starts once it has, and report the first failure after every
        // node that did start is a member (close() stops those).
        starting.get(i).thenAccept(LoamNode::crash);
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    awaitInSync();
  }

  private LoamNode.Builder nodeBuilder(Member m) {
    NodeSettings.Builder s =
        NodeSettings.defaults().withFlushInterval(config.flushInterval()).toBuilder();
    String zone = config.zone(m.index);
    if (zone != null) {
      s.zone(zone);
    }
    NodeSettings settings = config.settingsTweak().apply(s).build();
    return LoamNode.builder()
        .nodeId(m.id)
        .settings(settings)
        .ownership(OwnershipSettings.defaults().withLivenessTimeout(config.livenessTimeout()))
        .objectStore(store)
        .metastore(m.replica != null ? m.replica : shared);
  }

  ClusterConfig config() {
    return config;
  }

  int size() {
    return members.size();
  }

  ObjectStore store() {
    return store;
  }

  Member member(int i) {
    if (i < 0 || i >= members.size()) {
      throw new IndexOutOfBoundsException(
          "no node " + i + " in a cluster of " + members.size() + " nodes index=" + i);
    }
    return members.get(i);
  }

  LoamNode runningNode(int i) {
    Member m = member(i);
    LoamNode n = m.node;
    if (n == null) {
      throw new IllegalStateException("node " + m.id + " is not running node=" + m.id);
    }
    return n;
  }

  Metastore metastore(int i) {
    Member m = member(i);
    if (config.mode() == Mode.SHARED_METASTORE) {
      return shared;
    }
    RatisMetastore r = m.replica;
    if (r == null) {
      throw new IllegalStateException(
          "the replica of node " + m.id + " is not running node=" + m.id);
    }
    return r;
  }

  synchronized void kill(int i) {
    Member m = member(i);
    LoamNode n = m.node;
    m.node = null;
    if (n != null) {
      n.crash();
    }
    closeReplica(m);
  }

  synchronized void stop(int i) {
    Member m = member(i);
    LoamNode n = m.node;
    m.node = null;
    if (n != null) {
      n.close();
    }
    closeReplica(m);
  }

  private void closeReplica(Member m) {
    RatisMetastore r = m.replica;
    m.replica = null;
    if (r != null) {
      r.close();
    }
  }

  synchronized LoamNode restart(int i) {
    Member m = member(i);
    if (m.node != null || m.replica != null) {
      throw new IllegalStateException(
          "node " + m.id + " is running; kill or stop it first node=" + m.id);
    }
    if (config.mode() == Mode.RATIS) {
      m.replica = RatisMetastore.start(m.ratis, MetaSettings.defaults(), clock, metaExecutor);
    }
    m.node = await(nodeBuilder(m).startAsync(), "node " + m.id + " to restart");
    awaitInSync();
    return m.node;
  }

  int leader() {
    return waits.leader();
  }

  void awaitInSync() {
    waits.awaitInSync();
  }

  void awaitApplied(long token) {
    waits.awaitApplied(token);
  }

  StreamDescription awaitVisible(String namespace, String stream) {
    return waits.awaitVisible(namespace, stream);
  }

  <T> T await(CompletableFuture<T> f, String what) {
    return waits.await(f, what);
  }

  void close() {
    close(true);
  }

  /**
   * Stops everything; {@code deleteDir} false keeps the directory for another start attempt. The
   * nodes close in parallel (each drains its buffered appends), then the replicas in parallel (a
   * Ratis server takes a few hundred milliseconds to stop).
   */
  private void close(boolean deleteDir) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (Member m : members) {
      LoamNode n = m.node;
      m.node = null;
      if (n != null) {
        closing.add(n.closeAsync());
      }
    }
    awaitQuietly(closing);
    if (config.mode() == Mode.RATIS && !closing.isEmpty()) {
      // A closed node does not wait for a registration renewal it sent just before: let such a
      // proposal get its reply (one read-index round trip) before the replicas close, or the Ratis
      // client fails it at close and logs that at ERROR.
      try {
        awaitInSync();
      } catch (RuntimeException e) {
        // A replica that cannot answer is closed all the same.
      }
    }
    List<CompletableFuture<Void>> replicas = new ArrayList<>();
    for (Member m : members) {
      RatisMetastore r = m.replica;
      m.replica = null;
      if (r != null) {
        replicas.add(CompletableFuture.runAsync(r::close, closer(m.id)));
      }
    }
    awaitQuietly(replicas);
    if (shared != null) {
      shared.close();
    }
    if (ownsStore) {
      store.close();
    }
    shutdown(metaExecutor);
    shutdown(ioExecutor);
    if (deleteDir && ownsDataDir) {
      LoopbackPorts.deleteTree(dataDir);
    }
    if (holdsRatisThreads) {
      holdsRatisThreads = false;
      RatisThreads.release(java.time.Duration.ofSeconds(5));
    }
  }

  /** Runs one close on a thread of its own that ends with it. */
  private static java.util.concurrent.Executor closer(String id) {
    return r -> {
      Thread t = new Thread(r, "loam-test-close-" + id);
      t.setDaemon(true);
      t.start();
    };
  }

  private void awaitQuietly(List<CompletableFuture<Void>> fs) {
    try {
      CompletableFuture.allOf(fs.toArray(CompletableFuture[]::new))
          .get(config.timeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Each close logs its own failure; closing goes on with the rest.
    }
  }

  private void shutdown(ExecutorService e) {
    e.shutdown();
    try {
      if (!e.awaitTermination(config.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        e.shutdownNow();
      }
    } catch (InterruptedException ex) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
