package dev.loam.cluster;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.meta.testing.LoopbackPorts;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * N {@link LoamNode}s in one JVM, each on its own {@link RatisMetastore} replica (a voter over real
 * loopback sockets, its directory under {@code baseDir/<id>}), all on one shared {@link
 * InMemoryObjectStore}. Node ids are the peer ids {@code n1..nN}. Members can be killed (the node
 * crashes, its replica closes) and restarted from their directories. Waits with futures and
 * timeouts, never sleeps.
 */
final class RatisCluster implements AutoCloseable {
  static final long TIMEOUT_SECONDS = 30;

  /** Flush every 5 ms: a test's appends commit quickly. */
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  final InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.system());
  private final Path baseDir;
  private final NodeSettings nodeSettings;
  private final RatisSettings template;
  private final ExecutorService metaExecutor = Executors.newFixedThreadPool(4);
  private final Map<String, RatisMetastore> metas = new LinkedHashMap<>();
  private final Map<String, LoamNode> nodes = new LinkedHashMap<>();
  private final List<LoamNode> extraNodes = new ArrayList<>();

  private RatisCluster(
      Path baseDir, int n, NodeSettings nodeSettings, UnaryOperator<RatisSettings.Builder> tweak) {
    this.baseDir = baseDir;
    this.nodeSettings = nodeSettings;
    Map<String, String> voters = new LinkedHashMap<>();
    for (int i = 1; i <= n; i++) {
      voters.put("n" + i, "127.0.0.1:" + freePort());
    }
    this.template =
        tweak
            .apply(
                RatisSettings.builder("n1", voters, baseDir.resolve("n1"))
                    .electionTimeout(Duration.ofMillis(200), Duration.ofMillis(400))
                    .requestTimeout(Duration.ofSeconds(2))
                    .retryInterval(Duration.ofMillis(50))
                    .maxAttempts(100))
            .build();
  }

  /** Starts n replicas, then n nodes on them; returns once every replica is in sync. */
  static RatisCluster start(Path baseDir, int n) {
    return start(baseDir, n, FAST, b -> b);
  }

  static RatisCluster start(
      Path baseDir, int n, NodeSettings settings, UnaryOperator<RatisSettings.Builder> tweak) {
    for (int attempt = 1; ; attempt++) {
      RatisCluster c = new RatisCluster(baseDir, n, settings, tweak);
      try {
        for (String id : c.template.voters().keySet()) {
          c.startMeta(id);
        }
        for (String id : c.template.voters().keySet()) {
          c.startNode(id);
        }
        c.awaitInSync();
        return c;
      } catch (RuntimeException | Error e) {
        c.close();
        // A "free" port can be taken by another socket between freePort() and the bind: start
        // over on fresh ports and empty directories (the group's addresses live in its log).
        if (attempt < 3 && LoopbackPorts.portTaken(e)) {
          for (String id : c.template.voters().keySet()) {
            LoopbackPorts.deleteTree(baseDir.resolve(id));
          }
          continue;
        }
        throw e;
      }
    }
  }

  static int freePort() {
    return LoopbackPorts.freePort();
  }

  /** Starts (or restarts from its directory) the replica {@code id}. */
  RatisMetastore startMeta(String id) {
    RatisMetastore m =
        RatisMetastore.start(
            template.forPeer(id, baseDir.resolve(id)),
            MetaSettings.defaults(),
            InstantSource.system(),
            metaExecutor);
    metas.put(id, m);
    return m;
  }

  /** Starts (or restarts) the node {@code id} on its replica. */
  LoamNode startNode(String id) {
    LoamNode n = startNodeOn(id, metas.get(id));
    nodes.put(id, n);
    return n;
  }

  /** Starts a further node with id {@code nodeId} on {@code meta}; closed with the cluster. */
  LoamNode startNodeOn(String nodeId, RatisMetastore meta) {
    LoamNode n =
        LoamNode.builder()
            .nodeId(nodeId)
            .settings(nodeSettings)
            .objectStore(store)
            .metastore(meta)
            .start();
    extraNodes.add(n);
    return n;
  }

  /** Starts the replica and then the node {@code id} from its directory. */
  LoamNode restart(String id) {
    startMeta(id);
    return startNode(id);
  }

  /** Crashes node {@code id} (buffered appends fail unacknowledged) and closes its replica. */
  void kill(String id) {
    LoamNode n = nodes.remove(id);
    if (n != null) {
      n.crash();
    }
    RatisMetastore m = metas.remove(id);
    if (m != null) {
      m.close();
    }
  }

  /** Closes node {@code id} cleanly and then its replica (its directory stays). */
  void stop(String id) {
    LoamNode n = nodes.remove(id);
    if (n != null) {
      n.close();
    }
    RatisMetastore m = metas.remove(id);
    if (m != null) {
      m.close();
    }
  }

  LoamNode node(String id) {
    return nodes.get(id);
  }

  Log log(String id) {
    return nodes.get(id).log();
  }

  RatisMetastore meta(String id) {
    return metas.get(id);
  }

  /** The ids of the running nodes. */
  List<String> ids() {
    return new ArrayList<>(nodes.keySet());
  }

  /** Returns once every running replica has applied everything committed before the call. */
  void awaitInSync() {
    for (RatisMetastore m : metas.values()) {
      get(m.readLinearizable(r -> r.appliedIndex()));
    }
  }

  /** The id of the current metastore leader among the running replicas. */
  String leaderId() {
    for (int attempt = 0; attempt < 1000; attempt++) {
      awaitInSync();
      for (Map.Entry<String, RatisMetastore> e : metas.entrySet()) {
        if (e.getValue().isLeader()) {
          return e.getKey();
        }
      }
    }
    throw new AssertionError("no leader among " + metas.keySet());
  }

  static <T> T get(CompletableFuture<T> f) {
    try {
      return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("timed out or failed: " + e, e);
    }
  }

  /** Every record of one partition from offset 0, as {@code log} serves it. */
  static List<FetchedRecord> readAll(Log log, String ns, String stream, int partition) {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r = get(log.fetch(ns, stream, partition, offset, 1 << 20, Duration.ZERO));
      if (r.records().isEmpty()) {
        return out;
      }
      out.addAll(r.records());
      offset = r.nextOffset();
    }
  }

  @Override
  public void close() {
    for (LoamNode n : extraNodes) {
      n.close();
    }
    nodes.clear();
    // A Ratis server takes most of a second to stop: close the replicas in parallel.
    List<Thread> threads = new ArrayList<>();
    for (RatisMetastore m : metas.values()) {
      Thread t = new Thread(m::close, "close-" + m.peerId());
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    metas.clear();
    store.close();
    metaExecutor.shutdownNow();
  }
}
