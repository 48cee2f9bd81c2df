package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every route with curl, as docs/reference/http-api.md shows them. */
class CurlIT {
  @TempDir Path dir;
  HttpTestSupport h;
  String base;

  @BeforeEach
  void setUp() {
    Curl.requireCurl();
    h = new HttpTestSupport(dir, b -> b.maxRequestBytes(4096));
    base = h.base;
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  static JsonNode json(Curl.Result r) throws Exception {
    return HttpTestSupport.JSON.readTree(r.body());
  }

  static final String CT = "content-type: application/json";

  @Test
  void everyRouteWithCurl() throws Exception {
    Curl.Result ns =
        Curl.run("-X", "POST", base + "/v1/namespaces", "-H", CT, "-d", "{\"name\":\"demo\"}");
    assertThat(ns.status()).isEqualTo(201);
    assertThat(ns.header("location")).isEqualTo("/v1/namespaces/demo");
    assertThat(json(Curl.run(base + "/v1/namespaces")).path("namespaces").toString())
        .contains("demo");
    assertThat(Curl.run(base + "/v1/namespaces/demo").status()).isEqualTo(200);

    Curl.Result st =
        Curl.run(
            "-X",
            "POST",
            base + "/v1/namespaces/demo/streams",
            "-H",
            CT,
            "-d",
            "{\"name\":\"events\",\"partitions\":3,\"class\":\"standard\"}");
    assertThat(st.status()).isEqualTo(201);
    assertThat(json(Curl.run(base + "/v1/namespaces/demo/streams")).path("streams")).hasSize(1);
    assertThat(
            json(Curl.run(base + "/v1/namespaces/demo/streams/events")).path("partitions").asInt())
        .isEqualTo(3);

    // A long-poll started with curl, woken by a produce made with curl.
    CompletableFuture<Curl.Result> poll =
        CompletableFuture.supplyAsync(
            () ->
                Curl.run(
                    base
                        + "/v1/namespaces/demo/streams/events/partitions/0/records?offset=0&max_wait_ms=10000"),
            h.clientExecutor);
    HttpTestSupport.await(
        () -> h.server.longPollsInFlight() == 1, java.time.Duration.ofSeconds(10), "curl poll");
    Curl.Result p =
        Curl.run(
            "-X",
            "POST",
            base + "/v1/namespaces/demo/streams/events/records",
            "-H",
            CT,
            "-d",
            "{\"records\":[{\"key\":\"user-1\",\"value\":\"hello\",\"partition\":0}]}");
    assertThat(p.status()).isEqualTo(200);
    assertThat(json(p).path("records").get(0).path("offset").asLong()).isZero();
    String token = json(p).path("token").asText();
    Curl.Result woke = poll.get(10, TimeUnit.SECONDS);
    assertThat(woke.status()).isEqualTo(200);
    assertThat(woke.header("loam-next-offset")).isEqualTo("1");
    assertThat(woke.header("loam-high-watermark")).isEqualTo("1");
    assertThat(json(woke).path("records").get(0).path("value").asText()).isEqualTo("hello");

    Curl.Result b64 =
        Curl.run(
            "-X",
            "POST",
            base + "/v1/namespaces/demo/streams/events/records",
            "-H",
            CT,
            "-d",
            "{\"encoding\":\"base64\",\"records\":[{\"value\":\"AAH/\",\"partition\":0}]}");
    assertThat(b64.status()).isEqualTo(200);
    Curl.Result fetched =
        Curl.run(
            base
                + "/v1/namespaces/demo/streams/events/partitions/0/records?offset=0&encoding=base64&min_token="
                + token);
    assertThat(json(fetched).path("records").get(1).path("value").asText()).isEqualTo("AAH/");

    Curl.Result empty =
        Curl.run(
            base
                + "/v1/namespaces/demo/streams/events/partitions/0/records?offset=2&max_wait_ms=200");
    assertThat(json(empty).path("records")).isEmpty();
    assertThat(empty.header("loam-next-offset")).isEqualTo("2");

    assertThat(
            json(Curl.run(
                    base + "/v1/namespaces/demo/streams/events/partitions/0/offsets?spec=latest"))
                .path("offset")
                .asLong())
        .isEqualTo(2);
    assertThat(
            json(Curl.run(base + "/v1/namespaces/demo/streams/events/partitions/0/offsets"))
                .path("earliest")
                .asLong())
        .isZero();
    assertThat(
            Curl.run(base + "/v1/namespaces/demo/streams/events/partitions/0/offsets?timestamp=0")
                .status())
        .isEqualTo(200);

    assertThat(json(Curl.run(base + "/v1/health")).path("status").asText()).isEqualTo("ok");
    Curl.Result metrics = Curl.run(base + "/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(
            PrometheusSamples.parse(metrics.body())
                .matching("loam_http_requests_total", java.util.Map.of("route", "produce")))
        .isNotEmpty();

    // Errors as curl users meet them.
    Curl.Result form =
        Curl.run("-X", "POST", base + "/v1/namespaces/demo/streams/events/records", "-d", "{}");
    assertThat(form.status()).isEqualTo(415);
    assertThat(form.header("content-type")).isEqualTo("application/problem+json");
    Curl.Result tooBig =
        Curl.run(
            "-X",
            "POST",
            base + "/v1/namespaces/demo/streams/events/records",
            "-H",
            CT,
            "-d",
            "{\"records\":[{\"value\":\"" + "x".repeat(5000) + "\"}]}");
    assertThat(tooBig.status()).isEqualTo(413);
    assertThat(json(tooBig).path("code").asText()).isEqualTo("body_too_large");
    Curl.Result range =
        Curl.run(base + "/v1/namespaces/demo/streams/events/partitions/0/records?offset=99");
    assertThat(range.status()).isEqualTo(416);
    assertThat(json(range).path("high_watermark").asLong()).isEqualTo(2);

    assertThat(Curl.run("-X", "DELETE", base + "/v1/namespaces/demo/streams/events").status())
        .isEqualTo(204);
    assertThat(Curl.run("-X", "DELETE", base + "/v1/namespaces/demo").status()).isEqualTo(204);
    assertThat(Curl.run(base + "/v1/namespaces/demo").status()).isEqualTo(404);
  }

  @Test
  void curlReusesOneConnectionForSeveralRequests() {
    // curl keeps the connection open between URLs of one invocation; the server must allow it.
    Curl.Result r = Curl.run("-v", base + "/v1/health", base + "/v1/health");
    assertThat(r.status()).isEqualTo(200);
    assertThat(h.server.connections()).isLessThanOrEqualTo(1);
  }
}
