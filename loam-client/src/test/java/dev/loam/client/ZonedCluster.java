package dev.loam.client;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.http.LoamHttpServer;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.ratis.RatisMetastore;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.store.memory.InMemoryObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * N Loam nodes in one JVM, each a real cluster member: its own Ratis metastore replica (voters over
 * loopback sockets), a {@link LoamNode} in a given zone on one shared in-memory object store, and a
 * {@link LoamHttpServer} on its own loopback port. Each node advertises the address of a {@link
 * DroppingProxy} in front of its HTTP port, so a test can lose an answer; {@link #requests(int)}
 * reads a node's own request counters from its {@code /metrics}.
 */
final class ZonedCluster implements AutoCloseable {
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  /** One member. */
  static final class Member {
    final String id;
    final String zone;
    final int httpPort;
    final DroppingProxy proxy;
    RatisMetastore meta;
    LoamNode node;
    LoamHttpServer http;

    Member(String id, String zone, int httpPort, DroppingProxy proxy) {
      this.id = id;
      this.zone = zone;
      this.httpPort = httpPort;
      this.proxy = proxy;
    }

    /** The advertised address: the proxy's. */
    String url() {
      return "http://127.0.0.1:" + proxy.port();
    }

    /** The HTTP server itself, bypassing the proxy (for the test's own requests). */
    String directUrl() {
      return "http://127.0.0.1:" + httpPort;
    }
  }

  private final InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.system());
  private final ExecutorService metaExecutor = Executors.newFixedThreadPool(4);
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  final List<Member> members = new ArrayList<>();

  private ZonedCluster() {}

  /** Starts one node per zone in {@code zones} (ids n1..nN) and waits until each lists all. */
  static ZonedCluster start(Path dir, List<String> zones, Duration livenessTimeout)
      throws IOException {
    ZonedCluster c = new ZonedCluster();
    try {
      Map<String, String> voters = new LinkedHashMap<>();
      for (int i = 1; i <= zones.size(); i++) {
        voters.put("n" + i, "127.0.0.1:" + freePort());
      }
      RatisSettings template =
          RatisSettings.builder("n1", voters, dir.resolve("n1"))
              .electionTimeout(Duration.ofMillis(300), Duration.ofMillis(600))
              .requestTimeout(Duration.ofSeconds(3))
              .retryInterval(Duration.ofMillis(50))
              .maxAttempts(100)
              .build();
      int i = 0;
      for (String id : voters.keySet()) {
        int port = freePort();
        c.members.add(new Member(id, zones.get(i++), port, new DroppingProxy(port)));
      }
      for (Member m : c.members) {
        m.meta =
            RatisMetastore.start(
                template.forPeer(m.id, dir.resolve(m.id)),
                MetaSettings.defaults(),
                InstantSource.system(),
                c.metaExecutor);
      }
      for (Member m : c.members) {
        m.node =
            LoamNode.builder()
                .nodeId(m.id)
                .settings(FAST.withIdentity(m.url(), m.zone, 1))
                .ownership(OwnershipSettings.defaults().withLivenessTimeout(livenessTimeout))
                .objectStore(c.store)
                .metastore(m.meta)
                .start();
        m.http = LoamHttpServer.builder().node(m.node).port(m.httpPort).ioThreads(1).start();
      }
      for (int j = 0; j < c.members.size(); j++) {
        int k = j;
        await(
            () -> c.liveNodesSeenBy(k) == c.members.size(),
            Duration.ofSeconds(60),
            "node " + k + " lists every node");
      }
      return c;
    } catch (IOException | RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  Member member(int i) {
    return members.get(i);
  }

  /** How many live nodes {@code GET /v1/cluster/nodes} lists on node {@code i}. */
  int liveNodesSeenBy(int i) {
    String body = get(members.get(i).directUrl() + "/v1/cluster/nodes");
    return body == null ? -1 : body.split("\"node_id\"", -1).length - 1;
  }

  /** Node {@code i}'s answered requests by {@code route/status} (from its own /metrics). */
  Map<String, Long> requests(int i) {
    String body = get(members.get(i).directUrl() + "/metrics");
    Map<String, Long> out = new HashMap<>();
    if (body == null) {
      return out;
    }
    for (dev.loam.http.PrometheusSamples.Sample s :
        dev.loam.http.PrometheusSamples.parse(body)
            .matching("loam_http_requests_total", Map.of())) {
      out.merge(
          s.labels().get("route") + "/" + s.labels().get("status"), (long) s.value(), Long::sum);
    }
    return out;
  }

  /**
   * Stops node {@code i} as a failing machine would: its HTTP server and proxy stop answering, the
   * node crashes, its metastore replica closes.
   */
  void stop(int i) throws IOException {
    Member m = members.get(i);
    m.proxy.close();
    m.http.close();
    m.node.crash();
    m.meta.close();
    m.http = null;
    m.node = null;
    m.meta = null;
  }

  private String get(String url) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits for a condition the test cannot be told about directly (a server-side view), checking
   * every 10 ms up to {@code timeout}.
   */
  static void await(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
  }

  @Override
  public void close() {
    for (Member m : members) {
      try {
        m.proxy.close();
      } catch (IOException e) {
        // Keep closing.
      }
      if (m.http != null) {
        m.http.close();
      }
      if (m.node != null) {
        m.node.close();
      }
    }
    List<Thread> closers = new ArrayList<>();
    for (Member m : members) {
      if (m.meta != null) {
        Thread t = new Thread(m.meta::close, "close-" + m.id);
        t.start();
        closers.add(t);
      }
    }
    for (Thread t : closers) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    store.close();
    metaExecutor.shutdownNow();
  }
}
