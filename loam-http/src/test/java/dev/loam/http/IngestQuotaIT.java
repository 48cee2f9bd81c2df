package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The per-namespace ingest-bytes quota on the produce route, with a hand-advanced clock. */
class IngestQuotaIT {
  private static final long SECOND = 1_000_000_000L;

  @TempDir Path dir;
  final AtomicLong clock = new AtomicLong(7 * SECOND);
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h =
        new HttpTestSupport(
            dir,
            b ->
                b.ingestQuota(IngestQuota.of(100, 1000))
                    .ingestQuota("vip", IngestQuota.unlimited())
                    .quotaClock(clock::get));
    for (String ns : new String[] {"ns", "other", "vip"}) {
      assertThat(h.post("/v1/namespaces", "{\"name\":\"" + ns + "\"}").statusCode()).isEqualTo(201);
      HttpResponse<String> r =
          h.post(
              "/v1/namespaces/" + ns + "/streams",
              "{\"name\":\"s\",\"partitions\":1,\"class\":\"standard\"}");
      assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    }
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  /** 601 record bytes: key 1 + value 597 + header name 1 and value 2. */
  private HttpResponse<String> produce601(String ns) {
    return h.post(
        "/v1/namespaces/" + ns + "/streams/s/records",
        "{\"records\":[{\"key\":\"k\",\"value\":\""
            + "v".repeat(597)
            + "\",\"headers\":{\"h\":\"xy\"},\"partition\":0}]}");
  }

  private long latest(String ns) {
    return json(h.get("/v1/namespaces/" + ns + "/streams/s/partitions/0/offsets?spec=latest"))
        .path("offset")
        .asLong();
  }

  @Test
  void overTheQuotaIs429WithRetryAfterAndNothingStoredUntilTheBucketRefills() {
    HttpResponse<String> ok = produce601("ns");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(latest("ns")).isEqualTo(1);

    // 399 bytes left, 202 short at 100 B/s: 2.02 s, rounded up to 3 (2 if headers were not
    // counted).
    HttpResponse<String> over = produce601("ns");
    assertThat(over.statusCode()).as(over.body()).isEqualTo(429);
    assertThat(over.headers().firstValue("content-type")).hasValue("application/problem+json");
    assertThat(over.headers().firstValue("retry-after")).hasValue("3");
    JsonNode p = json(over);
    assertThat(p.path("code").asText()).isEqualTo("quota_exceeded");
    assertThat(p.path("status").asInt()).isEqualTo(429);
    assertThat(p.path("namespace").asText()).isEqualTo("ns");
    assertThat(p.path("limit_bytes_per_sec").asLong()).isEqualTo(100);
    assertThat(p.path("burst_bytes").asLong()).isEqualTo(1000);
    assertThat(p.path("request_bytes").asLong()).isEqualTo(601);
    assertThat(p.path("retry_after_seconds").asLong()).isEqualTo(3);
    assertThat(p.path("error").path("message").asText())
        .contains("namespace=ns", "limitBytesPerSec=100");
    assertThat(latest("ns")).isEqualTo(1);

    // Another namespace has its own bucket; an unlimited override is never refused.
    assertThat(produce601("other").statusCode()).isEqualTo(200);
    for (int i = 0; i < 5; i++) {
      assertThat(produce601("vip").statusCode()).isEqualTo(200);
    }
    assertThat(latest("vip")).isEqualTo(5);

    clock.addAndGet(2 * SECOND);
    HttpResponse<String> stillOver = produce601("ns");
    assertThat(stillOver.statusCode()).isEqualTo(429);
    assertThat(stillOver.headers().firstValue("retry-after")).hasValue("1");
    assertThat(latest("ns")).isEqualTo(1);

    clock.addAndGet(SECOND);
    HttpResponse<String> again = produce601("ns");
    assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
    assertThat(latest("ns")).isEqualTo(2);
    assertThat(
            PrometheusSamples.parse(h.get("/metrics").body())
                .value(
                    "loam_http_requests_total",
                    java.util.Map.of("route", "produce", "method", "POST", "status", "429")))
        .isEqualTo(2);
  }

  /** 601 record bytes to a partition the one-partition stream does not have: 400 from the node. */
  private HttpResponse<String> produce601ToPartition7(String ns) {
    return h.post(
        "/v1/namespaces/" + ns + "/streams/s/records",
        "{\"records\":[{\"key\":\"k\",\"value\":\""
            + "v".repeat(597)
            + "\",\"headers\":{\"h\":\"xy\"},\"partition\":7}]}");
  }

  @Test
  void aRequestTheNodeRefusesIsNotChargedAndIsAnswered400EvenWithAnEmptyBucket() {
    // Each of these would take 601 of the 1000 bytes: none may, so a valid one still fits after.
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> bad = produce601ToPartition7("ns");
      assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
      assertThat(json(bad).path("detail").asText()).contains("partition=7");
    }
    HttpResponse<String> missing =
        h.post(
            "/v1/namespaces/ns/streams/nope/records",
            "{\"records\":[{\"value\":\"" + "v".repeat(900) + "\"}]}");
    assertThat(missing.statusCode()).as(missing.body()).isEqualTo(404);
    HttpResponse<String> ok = produce601("ns");
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);

    // 399 bytes left: a valid request is over the quota, an invalid one is still a 400.
    assertThat(produce601("ns").statusCode()).isEqualTo(429);
    HttpResponse<String> badWhileEmpty = produce601ToPartition7("ns");
    assertThat(badWhileEmpty.statusCode()).as(badWhileEmpty.body()).isEqualTo(400);
    HttpResponse<String> unparsableWhileEmpty =
        h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":1}]}");
    assertThat(unparsableWhileEmpty.statusCode()).isEqualTo(400);
    assertThat(latest("ns")).isEqualTo(1);
  }

  @Test
  void aRefusedOrInvalidRequestIsNotCharged() {
    HttpResponse<String> bad =
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"records\":[{\"value\":\"" + "v".repeat(900) + "\",\"partition\":\"x\"}]}");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(produce601("ns").statusCode()).isEqualTo(200);
  }
}
