package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.LoamNode;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.io.IOException;
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
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quorum stream over the HTTP API: three nodes with journal ports and a fourth without, each with
 * an HTTP server. The stream is created over HTTP; a produce on a replica is acknowledged, one on
 * the node without a journal port is answered 307 to a replica's advertised address (the journal is
 * not there), and every replica serves the records.
 */
class QuorumStreamHttpIT {
  @TempDir Path dir;
  ExecutorService metaExecutor;
  InMemoryObjectStore store;
  Metastore meta;
  final List<LoamNode> nodes = new ArrayList<>();
  final List<LoamHttpServer> servers = new ArrayList<>();
  final List<String> bases = new ArrayList<>();
  HttpClient client;

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @BeforeEach
  void start() throws Exception {
    metaExecutor = Executors.newSingleThreadExecutor();
    store = new InMemoryObjectStore(InstantSource.system());
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExecutor);
    for (int i = 1; i <= 4; i++) {
      int httpPort = freePort();
      String base = "http://127.0.0.1:" + httpPort;
      LoamNode.Builder b =
          LoamNode.builder()
              .nodeId("n" + i)
              // Equal slots: the journal's three replicas are the first three ids, n1..n3.
              .settings(HttpTestSupport.FAST.withIdentity(base, "z" + i, 1))
              .objectStore(store)
              .metastore(meta)
              .dataDir(dir.resolve("n" + i));
      if (i <= 3) {
        b.journalAddress("127.0.0.1:" + freePort());
      }
      LoamNode n = b.start();
      nodes.add(n);
      servers.add(LoamHttpServer.builder().node(n).port(httpPort).ioThreads(1).start());
      bases.add(base);
    }
    client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterEach
  void stop() {
    servers.forEach(LoamHttpServer::close);
    nodes.forEach(LoamNode::close);
    meta.close();
    store.close();
    metaExecutor.shutdownNow();
  }

  HttpResponse<String> post(String url, String json) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String url) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void produceAndFetchAQuorumStreamOverHttp() throws Exception {
    String n1 = bases.get(0);
    assertThat(post(n1 + "/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      HttpResponse<String> c =
          post(
              n1 + "/v1/namespaces/ns/streams",
              "{\"name\":\"q\",\"partitions\":1,\"class\":\"quorum\"}");
      if (c.statusCode() == 201) {
        break;
      }
      // Refused until the three journal endpoints are advertised (each node's first pass).
      assertThat(c.statusCode()).as(c.body()).isEqualTo(400);
      assertThat(c.body()).contains("journal port");
      assertThat(System.nanoTime()).as("created within 20 s").isLessThan(end);
      Thread.sleep(50);
    }
    String records = "/v1/namespaces/ns/streams/q/records";
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> p =
          post(
              bases.get(i) + records, "{\"records\":[{\"value\":\"r" + i + "\",\"partition\":0}]}");
      assertThat(p.statusCode()).as(p.body()).isEqualTo(200);
      assertThat(HttpTestSupport.json(p).path("records").get(0).path("offset").asLong())
          .isEqualTo(i);
    }
    // The node without a journal port sends the produce to a replica, method and body kept.
    String body = "{\"records\":[{\"value\":\"r3\",\"partition\":0}]}";
    HttpResponse<String> redirected = post(bases.get(3) + records, body);
    assertThat(redirected.statusCode()).as(redirected.body()).isEqualTo(307);
    String location = redirected.headers().firstValue("location").orElseThrow();
    assertThat(location).endsWith(records);
    assertThat(bases.subList(0, 3).stream().anyMatch(location::startsWith)).as(location).isTrue();
    HttpResponse<String> there = post(location, body);
    assertThat(there.statusCode()).as(there.body()).isEqualTo(200);
    assertThat(HttpTestSupport.json(there).path("records").get(0).path("offset").asLong())
        .isEqualTo(3);
    // Every replica serves the four records in order, once it applied them.
    for (int i = 0; i < 3; i++) {
      String url = bases.get(i) + "/v1/namespaces/ns/streams/q/partitions/0/records?offset=0";
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      JsonNode f;
      while (true) {
        HttpResponse<String> r = get(url);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        f = HttpTestSupport.json(r);
        if (f.path("high_watermark").asLong() == 4 || System.nanoTime() > until) {
          break;
        }
        Thread.sleep(20);
      }
      List<String> values = new ArrayList<>();
      f.path("records").forEach(r -> values.add(r.path("value").asText()));
      assertThat(values).containsExactly("r0", "r1", "r2", "r3");
      assertThat(f.path("next_offset").asLong()).isEqualTo(4);
    }
    // The node without a journal port redirects fetches too.
    assertThat(
            get(bases.get(3) + "/v1/namespaces/ns/streams/q/partitions/0/records?offset=0")
                .statusCode())
        .isEqualTo(307);
  }
}
