package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three {@code loam node} processes (a Ratis metastore replica each, one shared {@code file://}
 * store) driven over HTTP with the JDK client: produce through every node and read everything back
 * from every node; kill -9 the metastore leader's process and keep producing and fetching through
 * the other two; restart it and read everything back from it; stop a node with SIGTERM.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProcessClusterIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String STREAM = "/v1/namespaces/default/streams/s";
  static final int PARTITIONS = 3;

  final HttpClient client =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();
  ProcessCluster cluster;

  /** What was acknowledged: partition to offset to value. */
  final Map<Integer, TreeMap<Long, String>> acked = new HashMap<>();

  /** The largest consistency token of any acknowledgement. */
  long maxToken;

  @BeforeEach
  void start() throws IOException {
    cluster =
        ProcessCluster.builder()
            .nodes(3)
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName()))
            .nodeArgs("--flush-ms", "10")
            .start();
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void producesAndFetchesThroughEveryNodeAcrossALeaderCrashAndRestart() throws Exception {
    HttpResponse<String> created =
        post(
            0,
            "/v1/namespaces/default/streams",
            "{\"name\":\"s\",\"partitions\":3,\"class\":\"standard\"}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);

    for (int i = 0; i < cluster.size(); i++) {
      produce(i, "before", 4);
    }
    for (int i = 0; i < cluster.size(); i++) {
      assertReadsEverything(i);
    }
    assertNodesListed(0);

    int leader = cluster.awaitMetastoreLeader(Duration.ofSeconds(20));
    long oldEpoch = cluster.ready(leader).epoch();
    cluster.kill9(leader);
    List<Integer> survivors = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      if (i != leader) {
        survivors.add(i);
      }
    }
    long t0 = System.nanoTime();
    for (int i : survivors) {
      produceRetrying(i, "after-kill", 4);
    }
    long failoverMillis = (System.nanoTime() - t0) / 1_000_000;
    for (int i : survivors) {
      assertReadsEverything(i);
    }
    int newLeader = cluster.awaitMetastoreLeader(Duration.ofSeconds(20));
    assertThat(newLeader).isNotEqualTo(leader);

    long r0 = System.nanoTime();
    ProcessCluster.Ready again = cluster.restart(leader);
    assertThat(again.epoch()).isGreaterThan(oldEpoch);
    assertReadsEverything(leader);
    long catchUpMillis = (System.nanoTime() - r0) / 1_000_000;
    produce(leader, "after-restart", 4);
    for (int i = 0; i < cluster.size(); i++) {
      assertReadsEverything(i);
    }
    JsonNode nodes = assertNodesListed(leader);
    for (JsonNode n : nodes) {
      if (n.get("node_id").asText().equals(cluster.nodeId(leader))) {
        assertThat(n.get("epoch").asLong()).isEqualTo(again.epoch());
      }
    }

    // SIGTERM: the node stops cleanly (prints "stopped") and the others keep serving.
    int victim = survivors.get(0);
    OptionalInt code = cluster.sigterm(victim, Duration.ofSeconds(30));
    assertThat(code).as(cluster.logTails(40)).isPresent();
    assertThat(Files.readString(cluster.log(victim)))
        .contains("loam: node " + cluster.nodeId(victim) + " stopped");
    produceRetrying(leader, "after-sigterm", 2);
    assertReadsEverything(leader);

    System.out.printf(
        "process cluster: killed leader %s; produce through survivors took %d ms across the"
            + " failover; restarted node caught up in %d ms%n",
        cluster.nodeId(leader), failoverMillis, catchUpMillis);
  }

  /** Produces {@code n} single-record requests through node {@code i}; each must be 200. */
  private void produce(int i, String tag, int n) throws Exception {
    for (int j = 0; j < n; j++) {
      HttpResponse<String> r = post(i, STREAM + "/records", body(i, tag, j));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      record(r, value(i, tag, j));
    }
  }

  /**
   * The same, retrying a request that fails while the metastore fails over (503/504, or the
   * connection) a bounded number of times with a growing pause between attempts.
   */
  private void produceRetrying(int i, String tag, int n) throws Exception {
    for (int j = 0; j < n; j++) {
      HttpResponse<String> r = null;
      IOException lastIo = null;
      for (int attempt = 0; attempt < 8; attempt++) {
        if (attempt > 0) {
          // Pacing retries against another process while it elects a leader, not synchronising.
          TimeUnit.MILLISECONDS.sleep(Math.min(2000, 100L << attempt));
        }
        try {
          r = post(i, STREAM + "/records", body(i, tag, j));
          lastIo = null;
        } catch (IOException e) {
          lastIo = e;
          continue;
        }
        if (r.statusCode() != 503 && r.statusCode() != 504) {
          break;
        }
      }
      if (lastIo != null) {
        throw lastIo;
      }
      assertThat(r.statusCode()).as(r.body() + "\n" + cluster.logTails(40)).isEqualTo(200);
      record(r, value(i, tag, j));
    }
  }

  private static String value(int node, String tag, int j) {
    return tag + "-" + node + "-" + j;
  }

  private static String body(int node, String tag, int j) {
    // Keys spread the records over the partitions.
    return "{\"records\":[{\"key\":\"k"
        + (node * 7 + j)
        + "\",\"value\":\""
        + value(node, tag, j)
        + "\"}]}";
  }

  private void record(HttpResponse<String> r, String value) throws IOException {
    JsonNode b = JSON.readTree(r.body());
    JsonNode pos = b.get("records").get(0);
    String prev =
        acked
            .computeIfAbsent(pos.get("partition").asInt(), p -> new TreeMap<>())
            .put(pos.get("offset").asLong(), value);
    assertThat(prev).as("offset acknowledged twice: " + r.body()).isNull();
    maxToken = Math.max(maxToken, Long.parseLong(b.get("token").asText()));
  }

  /**
   * Node {@code i} serves every acknowledged record (waiting for the newest token first): per
   * partition offsets dense from 0, each with its value, nothing else.
   */
  private void assertReadsEverything(int i) throws Exception {
    for (int p = 0; p < PARTITIONS; p++) {
      TreeMap<Long, String> want = acked.getOrDefault(p, new TreeMap<>());
      HttpResponse<String> r =
          get(i, STREAM + "/partitions/" + p + "/records?offset=0&min_token=" + maxToken);
      assertThat(r.statusCode()).as(cluster.nodeId(i) + " " + r.body()).isEqualTo(200);
      TreeMap<Long, String> got = new TreeMap<>();
      for (JsonNode rec : JSON.readTree(r.body()).get("records")) {
        got.put(rec.get("offset").asLong(), rec.get("value").asText());
      }
      assertThat(got).as("partition " + p + " read from " + cluster.nodeId(i)).isEqualTo(want);
      if (!want.isEmpty()) {
        assertThat(want.firstKey()).isZero();
        assertThat(want.lastKey()).isEqualTo(want.size() - 1L);
      }
    }
  }

  /** {@code GET /v1/cluster/nodes} on node {@code i} lists every node's address and zone. */
  private JsonNode assertNodesListed(int i) throws Exception {
    HttpResponse<String> r = get(i, "/v1/cluster/nodes");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode nodes = JSON.readTree(r.body()).get("nodes");
    Map<String, String> addresses = new TreeMap<>();
    Map<String, String> zones = new TreeMap<>();
    for (JsonNode n : nodes) {
      addresses.put(n.get("node_id").asText(), n.get("address").asText());
      zones.put(n.get("node_id").asText(), n.get("zone").asText());
    }
    Map<String, String> wantAddresses = new TreeMap<>();
    Map<String, String> wantZones = new TreeMap<>();
    for (int j = 0; j < cluster.size(); j++) {
      wantAddresses.put(cluster.nodeId(j), cluster.httpUrl(j));
      wantZones.put(cluster.nodeId(j), cluster.zone(j));
    }
    assertThat(addresses).isEqualTo(wantAddresses);
    assertThat(zones).isEqualTo(wantZones);
    return nodes;
  }

  private HttpResponse<String> post(int i, String path, String json) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(cluster.httpUrl(i) + path))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(int i, String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(cluster.httpUrl(i) + path))
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
