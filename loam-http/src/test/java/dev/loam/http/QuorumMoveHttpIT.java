package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.LoamNode;
import dev.loam.api.Role;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.tls.UsedSecrets;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's move of a quorum partition over HTTP ({@code POST
 * /v1/admin/streams/{ns}/{s}/partitions/{p}/move}): four journal nodes hold two journals, each node
 * serves HTTP with API keys required. A key without cluster-admin is refused 403 and begins
 * nothing; the errors of an unknown or the same journal are 404 and 400; with a cluster-admin key
 * the partition moves while a producer appends over HTTP all along, and every acknowledged record
 * reads back once, in acknowledgement order, from the target journal's replicas, whose name the
 * stream's description then carries.
 */
class QuorumMoveHttpIT {
  @TempDir Path dir;
  ExecutorService ex;
  InMemoryObjectStore store;
  EmbeddedMetastore meta;
  final List<LoamNode> nodes = new ArrayList<>();
  final List<LoamHttpServer> servers = new ArrayList<>();
  final List<String> bases = new ArrayList<>();
  HttpClient client;
  String admin;
  String namespaceAdmin;

  @BeforeEach
  void start() throws Exception {
    ex = Executors.newFixedThreadPool(3);
    store = new InMemoryObjectStore(InstantSource.system());
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            ex);
    String[] zones = {"z1", "z2", "z3", "z1"};
    for (int i = 1; i <= 4; i++) {
      int httpPort = QuorumStreamHttpIT.freePort();
      String base = "http://127.0.0.1:" + httpPort;
      LoamNode n =
          LoamNode.builder()
              .nodeId("n" + i)
              .settings(HttpTestSupport.FAST.withIdentity(base, zones[i - 1], 1))
              .objectStore(store)
              .metastore(meta)
              .dataDir(dir.resolve("n" + i))
              .journalAddress("127.0.0.1:" + QuorumStreamHttpIT.freePort())
              .start();
      nodes.add(n);
      servers.add(
          LoamHttpServer.builder()
              .node(n)
              .port(httpPort)
              .ioThreads(1)
              .authentication(Authentication.REQUIRED)
              .start());
      bases.add(base);
    }
    admin =
        token(ApiKeySpec.clusterWide(Role.CLUSTER_ADMIN, Role.ADMIN, Role.PRODUCE, Role.CONSUME));
    namespaceAdmin = token(ApiKeySpec.clusterWide(Role.ADMIN, Role.PRODUCE, Role.CONSUME));
    client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  @AfterEach
  void stop() throws Exception {
    servers.forEach(LoamHttpServer::close);
    nodes.forEach(LoamNode::close);
    meta.close();
    store.close();
    ex.shutdownNow();
    ex.awaitTermination(10, TimeUnit.SECONDS);
  }

  @Test
  void anAdminMovesAPartitionUnderAProducer() throws Exception {
    String n1 = bases.get(0);
    assertThat(post(n1 + "/v1/namespaces", admin, "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    await(
        () ->
            post(
                        n1 + "/v1/namespaces/ns/streams",
                        admin,
                        "{\"name\":\"q\",\"partitions\":1,\"class\":\"quorum\"}")
                    .statusCode()
                == 201);
    Map<String, List<String>> journals = meta.read(r -> r.journals());
    assertThat(journals).containsOnlyKeys("quorum-1", "quorum-2");
    String from = partition(n1).path("journal").asText();
    String to = from.equals("quorum-1") ? "quorum-2" : "quorum-1";
    String move = n1 + "/v1/admin/streams/ns/q/partitions/0/move";
    String body = "{\"to_journal\":\"" + to + "\"}";

    // A key without cluster-admin is refused and begins nothing.
    HttpResponse<String> refused = post(move, namespaceAdmin, body);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);
    assertThat(HttpTestSupport.json(refused).path("code").asText()).isEqualTo("forbidden");
    assertThat(refused.body()).contains("role=cluster-admin");
    assertThat(partition(n1).has("moving_to_journal")).isFalse();
    // An unknown journal and the partition's own are refused with their own codes.
    HttpResponse<String> unknown = post(move, admin, "{\"to_journal\":\"quorum-9\"}");
    assertThat(unknown.statusCode()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.body()).contains("no such journal journal=quorum-9");
    HttpResponse<String> same = post(move, admin, "{\"to_journal\":\"" + from + "\"}");
    assertThat(same.statusCode()).as(same.body()).isEqualTo(400);
    assertThat(same.body()).contains("on the target journal already");

    // A producer appending one record at a time over HTTP, through a replica of both journals.
    String both =
        journals.get(from).stream().filter(journals.get(to)::contains).findFirst().orElseThrow();
    String via = bases.get(Integer.parseInt(both.substring(1)) - 1);
    AtomicBoolean stop = new AtomicBoolean();
    Map<Long, String> acked = new ConcurrentHashMap<>();
    Future<?> producer =
        ex.submit(
            () -> {
              for (int i = 0; !stop.get(); i++) {
                String v = "c" + i;
                for (int attempt = 0; ; attempt++) {
                  HttpResponse<String> r =
                      post(
                          via + "/v1/namespaces/ns/streams/q/records",
                          admin,
                          "{\"records\":[{\"value\":\"" + v + "\",\"partition\":0}]}");
                  if (r.statusCode() == 200) {
                    long offset =
                        HttpTestSupport.json(r).path("records").get(0).path("offset").asLong();
                    assertThat(acked.putIfAbsent(offset, v))
                        .as("offset %d acknowledged twice", offset)
                        .isNull();
                    break;
                  }
                  // Refused while the partition moves (not appended), so sending it again
                  // cannot duplicate it; anything else would be an unknown outcome.
                  assertThat(r.statusCode()).as("%s: %s", v, r.body()).isIn(503, 307);
                  assertThat(attempt).as("attempts of %s: %s", v, r.body()).isLessThan(500);
                  Thread.sleep(10);
                }
              }
              return null;
            });
    await(() -> acked.size() > 20);
    HttpResponse<String> begun = post(move, admin, body);
    assertThat(begun.statusCode()).as(begun.body()).isEqualTo(202);
    JsonNode m = HttpTestSupport.json(begun);
    assertThat(m.path("from_journal").asText()).isEqualTo(from);
    assertThat(m.path("to_journal").asText()).isEqualTo(to);
    assertThat(m.path("state").asText()).isEqualTo("moving");
    List<String> replicas = new ArrayList<>();
    m.path("to_replicas").forEach(r -> replicas.add(r.asText()));
    assertThat(replicas).isEqualTo(journals.get(to));
    await(
        () -> {
          JsonNode p = partition(n1);
          return p.path("journal").asText().equals(to) && !p.has("moving_to_journal");
        });
    int atFlip = acked.size();
    await(() -> acked.size() > atFlip + 20);
    stop.set(true);
    producer.get(30, TimeUnit.SECONDS);

    // Offsets 0.. each acknowledged once; every replica of the target serves them in order.
    int count = acked.size();
    List<String> expected = new ArrayList<>();
    for (long o = 0; o < count; o++) {
      assertThat(acked).as("an acknowledgement for offset %d", o).containsKey(o);
      expected.add(acked.get(o));
    }
    for (String id : journals.get(to)) {
      String base = bases.get(Integer.parseInt(id.substring(1)) - 1);
      assertThat(readAll(base, count)).as("on %s", id).isEqualTo(expected);
    }
  }

  /** Partition 0 of the stream's description on {@code base}. */
  private JsonNode partition(String base) {
    HttpResponse<String> d = get(base + "/v1/namespaces/ns/streams/q", admin);
    assertThat(d.statusCode()).as(d.body()).isEqualTo(200);
    return HttpTestSupport.json(d).path("partition_bounds").get(0);
  }

  /** Every value from offset 0, once {@code base}'s replica holds {@code count} records. */
  private List<String> readAll(String base, int count) throws Exception {
    String url = base + "/v1/namespaces/ns/streams/q/partitions/0/records?offset=";
    await(
        () -> HttpTestSupport.json(get(url + "0", admin)).path("high_watermark").asLong() == count);
    List<String> out = new ArrayList<>();
    long next = 0;
    while (next < count) {
      HttpResponse<String> r = get(url + next, admin);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode f = HttpTestSupport.json(r);
      for (JsonNode rec : f.path("records")) {
        assertThat(rec.path("offset").asLong()).isEqualTo(out.size());
        out.add(rec.path("value").asText());
      }
      next = f.path("next_offset").asLong();
    }
    return out;
  }

  private String token(ApiKeySpec spec) throws Exception {
    CreatedApiKey k = nodes.get(0).log().createApiKey(spec).get(30, TimeUnit.SECONDS);
    UsedSecrets.record(k.secret());
    return k.token();
  }

  private HttpResponse<String> post(String url, String token, String json) {
    return send(
        HttpRequest.newBuilder(URI.create(url))
            .header("content-type", "application/json")
            .header("authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  private HttpResponse<String> get(String url, String token) {
    return send(
        HttpRequest.newBuilder(URI.create(url)).header("authorization", "Bearer " + token).GET());
  }

  private HttpResponse<String> send(HttpRequest.Builder b) {
    try {
      return client.send(
          b.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void await(BooleanSupplier cond) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!cond.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition within 30 s").isLessThan(end);
      Thread.sleep(20);
    }
  }
}
