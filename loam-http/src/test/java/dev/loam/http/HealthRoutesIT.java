package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Liveness and readiness over HTTP: {@code /v1/health/live} is 200 while the server serves; {@code
 * /v1/health/ready} and {@code /v1/health} answer from {@code LoamNode.health()}, 503 with {@code
 * Retry-After} and one reason per failing check while the metastore has no reachable majority, 200
 * again once it has.
 */
class HealthRoutesIT {
  @TempDir Path dir;
  FaultyMetastore meta;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    meta = new FaultyMetastore(dir.resolve("meta"));
    h = new HttpTestSupport(dir.resolve("data"), n -> n.metastore(meta), b -> b);
  }

  @AfterEach
  void tearDown() {
    h.close();
    meta.close();
  }

  @Test
  void readyWhileTheNodeCanServe() {
    HttpResponse<String> live = h.get("/v1/health/live");
    assertThat(live.statusCode()).isEqualTo(200);
    assertThat(json(live).path("status").asText()).isEqualTo("live");
    assertThat(json(live).path("node_id").asText()).isEqualTo("n1");

    HttpResponse<String> ready = h.get("/v1/health/ready");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    JsonNode r = json(ready);
    assertThat(r.path("status").asText()).isEqualTo("ready");
    assertThat(r.path("epoch").asLong()).isEqualTo(h.node.epoch());
    assertThat(r.has("reasons")).isFalse();

    HttpResponse<String> legacy = h.get("/v1/health");
    assertThat(legacy.statusCode()).isEqualTo(200);
    assertThat(json(legacy).path("status").asText()).isEqualTo("ok");
  }

  @Test
  void notReadyNamingTheMetastoreWhileNoMajorityIsReachable() {
    meta.noMajority = "no metastore leader known peer=test";

    HttpResponse<String> ready = h.get("/v1/health/ready");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
    assertThat(ready.headers().firstValue("retry-after")).hasValue("1");
    JsonNode r = json(ready);
    assertThat(r.path("status").asText()).isEqualTo("not_ready");
    assertThat(r.path("node_id").asText()).isEqualTo("n1");
    assertThat(r.path("reasons")).hasSize(1);
    assertThat(r.path("reasons").get(0).path("check").asText()).isEqualTo("metastore");
    assertThat(r.path("reasons").get(0).path("detail").asText())
        .isEqualTo("no metastore leader known peer=test");

    // The older route answers from the same check, with its own words.
    HttpResponse<String> legacy = h.get("/v1/health");
    assertThat(legacy.statusCode()).isEqualTo(503);
    assertThat(json(legacy).path("status").asText()).isEqualTo("unavailable");
    assertThat(json(legacy).path("detail").asText()).contains("metastore: no metastore leader");

    // Liveness is not readiness: the process still serves.
    assertThat(h.get("/v1/health/live").statusCode()).isEqualTo(200);

    meta.noMajority = null;
    assertThat(h.get("/v1/health/ready").statusCode()).isEqualTo(200);
    PrometheusSamples p = PrometheusSamples.parse(h.get("/metrics").body());
    assertThat(
            p.value(
                "loam_http_requests_total",
                java.util.Map.of("route", "health_ready", "method", "GET", "status", "503")))
        .isGreaterThanOrEqualTo(1);
    assertThat(
            p.value(
                "loam_http_requests_total",
                java.util.Map.of("route", "health_live", "method", "GET", "status", "200")))
        .isEqualTo(1);
  }
}
