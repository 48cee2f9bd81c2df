package dev.loam.http;

import static dev.loam.http.HttpTestSupport.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every route and error of docs/reference/http-api.md against a started server, with the JDK
 * client.
 */
class LoamHttpServerIT {
  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() {
    h =
        new HttpTestSupport(
            dir, b -> b.maxRequestBytes(64 * 1024).maxFetchWait(Duration.ofSeconds(20)));
    assertThat(h.post("/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private void createStream(String name, int partitions) {
    HttpResponse<String> r =
        h.post(
            "/v1/namespaces/ns/streams",
            "{\"name\":\"" + name + "\",\"partitions\":" + partitions + ",\"class\":\"standard\"}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
  }

  private static void assertProblem(HttpResponse<String> r, int status, String code, String kind) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/problem+json");
    JsonNode b = json(r);
    assertThat(b.path("status").asInt()).isEqualTo(status);
    assertThat(b.path("code").asText()).isEqualTo(code);
    assertThat(b.path("error").path("kind").asText()).isEqualTo(kind);
    assertThat(b.path("error").path("message").asText()).isNotBlank();
    assertThat(r.body()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void namespacesAreCreatedListedDescribedAndDeleted() {
    HttpResponse<String> dup = h.post("/v1/namespaces", "{\"name\":\"ns\"}");
    assertProblem(dup, 409, "conflict", "CONFLICT");
    HttpResponse<String> created = h.post("/v1/namespaces", "{\"name\":\"other\"}");
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(created.headers().firstValue("location")).hasValue("/v1/namespaces/other");
    assertThat(json(created).path("name").asText()).isEqualTo("other");

    JsonNode list = json(h.get("/v1/namespaces"));
    assertThat(list.path("namespaces").toString()).contains("\"default\"", "\"ns\"", "\"other\"");
    createStream("s", 1);
    JsonNode ns = json(h.get("/v1/namespaces/ns"));
    assertThat(ns.path("streams").toString()).isEqualTo("[\"s\"]");

    assertProblem(h.delete("/v1/namespaces/ns"), 409, "conflict", "CONFLICT");
    assertThat(h.delete("/v1/namespaces/other").statusCode()).isEqualTo(204);
    assertProblem(h.get("/v1/namespaces/other"), 404, "not_found", "NOT_FOUND");
    assertProblem(h.delete("/v1/namespaces/other"), 404, "not_found", "NOT_FOUND");
  }

  @Test
  void streamsAreCreatedListedDescribedAndDeleted() {
    HttpResponse<String> r =
        h.post(
            "/v1/namespaces/ns/streams",
            "{\"name\":\"s\",\"partitions\":3,\"class\":\"standard\",\"retention_ms\":86400000,"
                + "\"cleanup_policy\":\"delete\"}");
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.headers().firstValue("location")).hasValue("/v1/namespaces/ns/streams/s");
    JsonNode d = json(r);
    assertThat(d.path("partitions").asInt()).isEqualTo(3);
    assertThat(d.path("class").asText()).isEqualTo("standard");
    assertThat(d.path("retention_ms").asLong()).isEqualTo(86_400_000L);
    assertThat(d.path("partition_bounds")).hasSize(3);

    assertProblem(
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"s\",\"partitions\":3}"),
        409,
        "conflict",
        "CONFLICT");
    assertProblem(
        h.post("/v1/namespaces/nope/streams", "{\"name\":\"s\"}"), 404, "not_found", "NOT_FOUND");
    assertThat(
            json(h.get("/v1/namespaces/ns/streams")).path("streams").get(0).path("name").asText())
        .isEqualTo("s");
    assertThat(json(h.get("/v1/namespaces/ns/streams/s")).path("name").asText()).isEqualTo("s");
    assertThat(h.delete("/v1/namespaces/ns/streams/s").statusCode()).isEqualTo(204);
    assertProblem(h.get("/v1/namespaces/ns/streams/s"), 404, "not_found", "NOT_FOUND");
    assertProblem(h.delete("/v1/namespaces/ns/streams/s"), 404, "not_found", "NOT_FOUND");
  }

  @Test
  void utf8RecordsRoundTripWithHeadersTimestampsAndPartitions() {
    createStream("s", 2);
    HttpResponse<String> p =
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"records\":[{\"key\":\"k1\",\"value\":\"héllo\",\"headers\":{\"h\":\"1\",\"n\":null,"
                + "\"r\":[\"a\",\"b\"]},\"timestamp\":1700000000000,\"partition\":1},"
                + "{\"key\":null,\"value\":\"two\",\"partition\":1},{\"value\":null,\"partition\":1}]}");
    assertThat(p.statusCode()).as(p.body()).isEqualTo(200);
    JsonNode pr = json(p);
    assertThat(pr.path("records").toString())
        .isEqualTo(
            "[{\"partition\":1,\"offset\":0},{\"partition\":1,\"offset\":1},"
                + "{\"partition\":1,\"offset\":2}]");
    assertThat(pr.path("token").asText()).matches("[0-9]+");
    assertThat(pr.path("duplicate").asBoolean()).isFalse();

    HttpResponse<String> f = h.get("/v1/namespaces/ns/streams/s/partitions/1/records?offset=0");
    assertThat(f.statusCode()).isEqualTo(200);
    assertThat(f.headers().firstValue("loam-next-offset")).hasValue("3");
    assertThat(f.headers().firstValue("loam-high-watermark")).hasValue("3");
    JsonNode fr = json(f);
    assertThat(fr.path("next_offset").asLong()).isEqualTo(3);
    assertThat(fr.path("high_watermark").asLong()).isEqualTo(3);
    JsonNode r0 = fr.path("records").get(0);
    assertThat(r0.path("offset").asLong()).isZero();
    assertThat(r0.path("timestamp").asLong()).isEqualTo(1_700_000_000_000L);
    assertThat(r0.path("key").asText()).isEqualTo("k1");
    assertThat(r0.path("value").asText()).isEqualTo("héllo");
    assertThat(r0.path("headers").toString())
        .isEqualTo("{\"h\":\"1\",\"n\":null,\"r\":[\"a\",\"b\"]}");
    assertThat(fr.path("records").get(1).path("key").isNull()).isTrue();
    assertThat(fr.path("records").get(2).path("value").isNull()).isTrue();

    HttpResponse<String> fromTwo =
        h.get("/v1/namespaces/ns/streams/s/partitions/1/records?offset=2&max_bytes=1");
    assertThat(json(fromTwo).path("records")).hasSize(1);
  }

  @Test
  void base64RecordsRoundTripAndBinaryIsNotServedAsText() {
    createStream("s", 1);
    byte[] key = {0, 1, 2, (byte) 0xff};
    byte[] value = {(byte) 0xc3, (byte) 0x28, 0, 127};
    String b64k = Base64.getEncoder().encodeToString(key);
    String b64v = Base64.getEncoder().encodeToString(value);
    HttpResponse<String> p =
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"encoding\":\"base64\",\"records\":[{\"key\":\""
                + b64k
                + "\",\"value\":\""
                + b64v
                + "\",\"headers\":{\"bin\":\""
                + b64v
                + "\"}}]}");
    assertThat(p.statusCode()).as(p.body()).isEqualTo(200);
    JsonNode f =
        json(h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&encoding=base64"));
    JsonNode r = f.path("records").get(0);
    assertThat(Base64.getDecoder().decode(r.path("key").asText())).isEqualTo(key);
    assertThat(Base64.getDecoder().decode(r.path("value").asText())).isEqualTo(value);
    assertThat(r.path("headers").path("bin").asText()).isEqualTo(b64v);
    // Served as text the bytes would be altered: refused instead, naming the way out.
    HttpResponse<String> asText =
        h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0");
    assertProblem(asText, 406, "not_utf8", "INVALID");
    assertThat(json(asText).path("detail").asText()).contains("encoding=base64", "offset=0");
    // Mixed: a text key with a base64 value.
    HttpResponse<String> mixed =
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"key_encoding\":\"utf-8\",\"value_encoding\":\"base64\",\"records\":[{\"key\":\"k\","
                + "\"value\":\""
                + b64v
                + "\"}]}");
    assertThat(mixed.statusCode()).isEqualTo(200);
    JsonNode m =
        json(h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=1&encoding=base64"))
            .path("records")
            .get(0);
    assertThat(Base64.getDecoder().decode(m.path("key").asText()))
        .isEqualTo("k".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void anIdempotentRetryIsAnsweredWithTheOriginalOffsets() {
    createStream("s", 1);
    String body =
        "{\"producer_id\":42,\"producer_epoch\":0,\"sequence\":0,"
            + "\"records\":[{\"value\":\"a\"},{\"value\":\"b\"}]}";
    JsonNode first = json(h.post("/v1/namespaces/ns/streams/s/records", body));
    JsonNode retry = json(h.post("/v1/namespaces/ns/streams/s/records", body));
    assertThat(retry.path("records")).isEqualTo(first.path("records"));
    assertThat(first.path("duplicate").asBoolean()).isFalse();
    assertThat(retry.path("duplicate").asBoolean()).isTrue();
    assertThat(
            json(h.get("/v1/namespaces/ns/streams/s/partitions/0/offsets?spec=latest"))
                .path("offset")
                .asLong())
        .isEqualTo(2);
    // The next batch continues the sequence; a gap is a conflict; an older epoch is fenced.
    String next =
        "{\"producer_id\":42,\"producer_epoch\":0,\"sequence\":2,\"records\":[{\"value\":\"c\"}]}";
    assertThat(h.post("/v1/namespaces/ns/streams/s/records", next).statusCode()).isEqualTo(200);
    assertProblem(
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"producer_id\":42,\"producer_epoch\":0,\"sequence\":9,\"records\":[{\"value\":\"x\"}]}"),
        409,
        "conflict",
        "CONFLICT");
    assertThat(
            h.post(
                    "/v1/namespaces/ns/streams/s/records",
                    "{\"producer_id\":42,\"producer_epoch\":1,\"sequence\":0,"
                        + "\"records\":[{\"value\":\"d\"}]}")
                .statusCode())
        .isEqualTo(200);
    assertProblem(
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"producer_id\":42,\"producer_epoch\":0,\"sequence\":3,\"records\":[{\"value\":\"y\"}]}"),
        409,
        "fenced",
        "FENCED");
    assertProblem(
        h.post(
            "/v1/namespaces/ns/streams/s/records",
            "{\"producer_id\":42,\"records\":[{\"value\":\"y\"}]}"),
        400,
        "invalid",
        "INVALID");
  }

  @Test
  void aLongPollCompletesSoonAfterAProduceFromAnotherRequest() throws Exception {
    createStream("s", 1);
    CompletableFuture<HttpResponse<String>> poll =
        h.sendAsync(
            h.req("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=15000")
                .GET()
                .build());
    HttpTestSupport.await(
        () -> h.server.longPollsInFlight() == 1, Duration.ofSeconds(5), "the long-poll to wait");
    assertThat(poll).isNotDone();
    HttpResponse<String> p =
        h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"wake\"}]}");
    assertThat(p.statusCode()).isEqualTo(200);
    long acked = System.nanoTime();
    HttpResponse<String> r = poll.get(10, TimeUnit.SECONDS);
    long wakeMillis = (System.nanoTime() - acked) / 1_000_000;
    assertThat(wakeMillis).isLessThan(1000);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).path("records").get(0).path("value").asText()).isEqualTo("wake");
    assertThat(r.headers().firstValue("loam-next-offset")).hasValue("1");
    assertThat(h.server.longPollsInFlight()).isZero();
  }

  @Test
  void aLongPollTimesOutEmptyWithItsHeaders() {
    createStream("s", 1);
    h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"a\"}]}");
    long start = System.nanoTime();
    HttpResponse<String> r =
        h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=1&max_wait_ms=300");
    long took = (System.nanoTime() - start) / 1_000_000;
    assertThat(took).isGreaterThanOrEqualTo(250);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(json(r).path("records")).isEmpty();
    assertThat(json(r).path("next_offset").asLong()).isEqualTo(1);
    assertThat(r.headers().firstValue("loam-next-offset")).hasValue("1");
    assertThat(r.headers().firstValue("loam-high-watermark")).hasValue("1");
  }

  @Test
  void minTokenReadsYourWrites() {
    createStream("s", 1);
    JsonNode p =
        json(h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"a\"}]}"));
    HttpResponse<String> r =
        h.get(
            "/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&min_token="
                + p.path("token").asText());
    assertThat(json(r).path("records").get(0).path("value").asText()).isEqualTo("a");
  }

  @Test
  void offsetsEarliestLatestAndByTimestamp() {
    createStream("s", 1);
    h.post(
        "/v1/namespaces/ns/streams/s/records",
        "{\"records\":[{\"value\":\"a\",\"timestamp\":1000},{\"value\":\"b\",\"timestamp\":2000},"
            + "{\"value\":\"c\",\"timestamp\":3000}]}");
    String base = "/v1/namespaces/ns/streams/s/partitions/0/offsets";
    JsonNode both = json(h.get(base));
    assertThat(both.path("earliest").asLong()).isZero();
    assertThat(both.path("latest").asLong()).isEqualTo(3);
    assertThat(json(h.get(base + "?spec=earliest")).path("offset").asLong()).isZero();
    assertThat(json(h.get(base + "?spec=latest")).path("offset").asLong()).isEqualTo(3);
    assertThat(json(h.get(base + "?timestamp=1500")).path("offset").asLong()).isEqualTo(1);
    assertThat(json(h.get(base + "?spec=timestamp&timestamp=9999")).path("offset").asLong())
        .isEqualTo(3);
    assertProblem(h.get(base + "?spec=soonest"), 400, "invalid", "INVALID");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/7/offsets"), 404, "not_found", "NOT_FOUND");
  }

  @Test
  void healthAndMetrics() {
    createStream("s", 1);
    h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"a\"}]}");
    JsonNode health = json(h.get("/v1/health"));
    assertThat(health.path("status").asText()).isEqualTo("ok");
    assertThat(health.path("node_id").asText()).isEqualTo("n1");
    HttpResponse<String> m = h.get("/metrics");
    assertThat(m.statusCode()).isEqualTo(200);
    assertThat(m.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    PrometheusSamples p = PrometheusSamples.parse(m.body());
    assertThat(
            p.value(
                "loam_http_requests_total",
                Map.of("route", "produce", "method", "POST", "status", "200")))
        .isEqualTo(1);
    assertThat(p.type("loam_http_request_duration_seconds")).hasValue("histogram");
    assertThat(
            p.value(
                "loam_http_request_duration_seconds_bucket",
                Map.of("route", "produce", "le", "+Inf")))
        .isEqualTo(1);
    assertThat(p.value("loam_http_request_duration_seconds_count", Map.of("route", "produce")))
        .isEqualTo(1);
    // The fixed buckets, in seconds, and nothing else.
    assertThat(
            p
                .matching("loam_http_request_duration_seconds_bucket", Map.of("route", "produce"))
                .stream()
                .map(b -> b.labels().get("le"))
                .toList())
        .containsExactly(
            "0.001", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1.0", "2.5", "5.0",
            "10.0", "30.0", "60.0", "+Inf");
    assertThat(p.value("loam_http_produced_records_total")).isEqualTo(1);
    assertThat(p.value("loam_http_produced_bytes_total")).isEqualTo(1);
    assertThat(p.value("loam_http_connections")).isGreaterThanOrEqualTo(1);
    assertThat(p.value("loam_http_long_polls_in_flight")).isZero();
    // The node's meters, with the node's and cluster's labels.
    assertThat(p.value("loam_writer_flushes_total", Map.of("loam_node", "n1")))
        .isGreaterThanOrEqualTo(1);
    assertThat(p.value("loam_writer_puts_total")).isGreaterThanOrEqualTo(1);
    for (String name :
        List.of(
            "loam_writer_commit_latency_mean_seconds",
            "loam_read_tail_cache_hits_total",
            "loam_read_object_gets_total",
            "loam_read_wal_read_ahead_hits_total",
            "loam_read_wal_merged_gets_total",
            "loam_read_segment_index_gets_total",
            "loam_read_wal_read_ahead_bytes",
            "loam_read_disk_cache_bytes")) {
      assertThat(p.value(name)).as(name).isGreaterThanOrEqualTo(0);
    }
  }

  @Test
  void connectionsAreKeptAliveAndPipelinedRequestsAnsweredInOrder() throws Exception {
    for (int i = 0; i < 10; i++) {
      assertThat(h.get("/v1/health").statusCode()).isEqualTo(200);
    }
    assertThat(h.server.connections()).isEqualTo(1);
    createStream("s", 1);
    try (Socket s = new Socket("127.0.0.1", h.server.port())) {
      s.setSoTimeout(10_000);
      String body = "{\"records\":[{\"value\":\"x\"}]}";
      String reqs =
          "GET /v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=5000 HTTP/1.1\r\n"
              + "Host: x\r\n\r\n"
              + "GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n";
      OutputStream out = s.getOutputStream();
      out.write(reqs.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      HttpTestSupport.await(
          () -> h.server.longPollsInFlight() == 1, Duration.ofSeconds(5), "the pipelined poll");
      h.post("/v1/namespaces/ns/streams/s/records", body);
      InputStream in = s.getInputStream();
      String first = readResponse(in);
      String second = readResponse(in);
      assertThat(first).startsWith("HTTP/1.1 200").contains("\"value\":\"x\"");
      assertThat(second).startsWith("HTTP/1.1 200").contains("\"status\":\"ok\"");
      // Connection: close is honoured.
      out.write(
          "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      assertThat(readResponse(in)).containsIgnoringCase("connection: close");
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  /** Reads one response with a Content-Length body. */
  static String readResponse(InputStream in) throws Exception {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int state = 0;
    while (state < 4) {
      int c = in.read();
      if (c < 0) {
        throw new AssertionError("connection closed mid-response: " + head);
      }
      head.write(c);
      state =
          (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3))
              ? state + 1
              : (c == '\r' ? 1 : 0);
    }
    String h = head.toString(StandardCharsets.US_ASCII);
    int len = 0;
    for (String line : h.split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        len = Integer.parseInt(line.substring(15).trim());
      }
    }
    byte[] body = in.readNBytes(len);
    return h + new String(body, StandardCharsets.UTF_8);
  }

  /**
   * A client that sends a large body without Expect: 100-continue still reads the 413: the server
   * drops the rest of the body before it closes, instead of resetting the connection under the
   * client's write (which the JDK client reports as "header parser received no bytes").
   */
  @Test
  void anOversizedBodyIsAnswered413EvenWhileTheClientIsStillSending() {
    h.post("/v1/namespaces", "{\"name\":\"big\"}");
    h.post("/v1/namespaces/big/streams", "{\"name\":\"s\",\"partitions\":1}");
    String huge = "{\"records\":[{\"value\":\"" + "x".repeat(2 << 20) + "\"}]}";
    for (int i = 0; i < 10; i++) {
      HttpResponse<String> r = h.post("/v1/namespaces/big/streams/s/records", huge);
      assertProblem(r, 413, "body_too_large", "INVALID");
    }
  }

  @Test
  void badRequestsAreRefusedNamingTheProblem() {
    createStream("s", 2);
    String rec = "/v1/namespaces/ns/streams/s/records";
    HttpResponse<String> typo = h.post(rec, "{\"records\":[{\"vaule\":\"x\"}]}");
    assertProblem(typo, 400, "invalid", "INVALID");
    assertThat(json(typo).path("detail").asText()).contains("records[0].vaule");
    assertThat(
            json(h.post(rec, "{\"records\":[{\"value\":\"x\",\"partition\":-1}]}"))
                .path("detail")
                .asText())
        .contains("records[0].partition");
    assertProblem(h.post(rec, "{\"records\":[{\"value\":\"x\"}"), 400, "malformed_json", "INVALID");
    assertProblem(h.post(rec, ""), 400, "malformed_json", "INVALID");
    assertProblem(h.post(rec, "[1,2]"), 400, "malformed_json", "INVALID");
    assertProblem(h.post(rec, "{\"records\":[]}"), 400, "invalid", "INVALID");
    assertProblem(
        h.post(rec, "{\"records\":[{\"value\":\"x\"}]} trailing"),
        400,
        "malformed_json",
        "INVALID");
    assertProblem(h.post(rec, "{\"records\":[],\"records\":[]}"), 400, "malformed_json", "INVALID");
    assertProblem(
        h.post(rec, "{\"encoding\":\"base64\",\"records\":[{\"value\":\"!!\"}]}"),
        400,
        "invalid",
        "INVALID");
    assertProblem(
        h.post(rec, "{\"records\":[{\"value\":\"x\",\"partition\":5}]}"),
        400,
        "invalid",
        "INVALID");
    assertProblem(
        h.send(
            h.req(rec)
                .header("content-type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("{\"records\":[{\"value\":\"x\"}]}"))
                .build()),
        415,
        "unsupported_media_type",
        "INVALID");
    HttpResponse<String> big =
        h.post(rec, "{\"records\":[{\"value\":\"" + "x".repeat(100_000) + "\"}]}");
    assertProblem(big, 413, "body_too_large", "INVALID");
    assertThat(json(big).path("detail").asText()).contains("maxRequestBytes=65536");
    assertProblem(
        h.post("/v1/namespaces/nope/streams/s/records", "{\"records\":[{\"value\":\"x\"}]}"),
        404,
        "not_found",
        "NOT_FOUND");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/nope/partitions/0/records?offset=0"),
        404,
        "not_found",
        "NOT_FOUND");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/2/records?offset=0"),
        404,
        "not_found",
        "NOT_FOUND");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/x/records?offset=0"),
        400,
        "invalid",
        "INVALID");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/0/records"), 400, "invalid", "INVALID");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&bogus=1"),
        400,
        "invalid",
        "INVALID");
    assertProblem(
        h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=999999"),
        400,
        "invalid",
        "INVALID");
    HttpResponse<String> range = h.get("/v1/namespaces/ns/streams/s/partitions/0/records?offset=5");
    assertProblem(range, 416, "offset_out_of_range", "INVALID");
    assertThat(json(range).path("log_start_offset").asLong()).isZero();
    assertThat(json(range).path("high_watermark").asLong()).isZero();
    assertProblem(h.get("/v2/things"), 404, "route_not_found", "NOT_FOUND");
    HttpResponse<String> method = h.delete("/v1/namespaces/ns/streams/s/records");
    assertProblem(method, 405, "method_not_allowed", "INVALID");
    assertThat(method.headers().firstValue("allow")).hasValue("POST");
    assertProblem(
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"t\",\"class\":\"gold\"}"),
        400,
        "invalid",
        "INVALID");
    assertProblem(
        h.post("/v1/namespaces/ns/streams", "{\"name\":\"bad name!\"}"), 400, "invalid", "INVALID");
    // Nothing above changed stored data.
    JsonNode d = json(h.get("/v1/namespaces/ns/streams/s"));
    assertThat(d.path("partition_bounds").get(0).path("high_watermark").asLong()).isZero();
    assertThat(d.path("partition_bounds").get(1).path("high_watermark").asLong()).isZero();
  }

  @Test
  void longPollsBeyondTheLimitAreRefusedWithRetryAfter() throws Exception {
    createStream("s", 1);
    try (LoamHttpServer small =
        LoamHttpServer.builder().node(h.node).port(0).maxLongPolls(1).start()) {
      String base = "http://127.0.0.1:" + small.port();
      CompletableFuture<HttpResponse<String>> first =
          h.sendAsync(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(
                          base
                              + "/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=10000"))
                  .build());
      HttpTestSupport.await(() -> small.longPollsInFlight() == 1, Duration.ofSeconds(5), "poll 1");
      HttpResponse<String> second =
          h.send(
              java.net.http.HttpRequest.newBuilder(
                      java.net.URI.create(
                          base
                              + "/v1/namespaces/ns/streams/s/partitions/0/records?offset=0&max_wait_ms=10000"))
                  .build());
      assertProblem(second, 503, "too_many_long_polls", "UNAVAILABLE");
      assertThat(second.headers().firstValue("retry-after")).hasValue("1");
      h.post("/v1/namespaces/ns/streams/s/records", "{\"records\":[{\"value\":\"a\"}]}");
      assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }
}
