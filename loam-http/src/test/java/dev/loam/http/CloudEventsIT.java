package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import dev.loam.api.Partitioning;
import dev.loam.api.StreamSpec;
import dev.loam.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.protobuf.ProtobufFormat;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CloudEvents over HTTP against a real node (docs/reference/cloudevents.md): every ingest mode,
 * read back in every consume mode byte for byte, batches all or nothing and coalesced, 415, the
 * partition rules, and the read-back rules for records that plain produce wrote. Requests are built
 * by the unmodified CloudEvents Java SDK where it has a writer for the mode.
 */
class CloudEventsIT {
  private static final String EVENTS = "/v1/namespaces/demo/streams/orders/events";

  @TempDir Path dir;
  HttpTestSupport h;

  @BeforeEach
  void setUp() throws Exception {
    h = new HttpTestSupport(dir);
    h.node.log().createNamespace("demo").get();
    h.node.log().createStream("demo", "orders", StreamSpec.standard(4)).get();
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private HttpResponse<String> post(String path, String contentType, byte[] body) {
    return h.send(
        h.req(path)
            .header("content-type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build());
  }

  private HttpResponse<byte[]> getBytes(String path) {
    try {
      return h.client.send(h.req(path).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private long highWatermark(int p) throws Exception {
    return h.node.log().describeStream("demo", "orders").get().partitions().get(p).highWatermark();
  }

  private long stored() throws Exception {
    long n = 0;
    for (int p = 0; p < 4; p++) {
      n += highWatermark(p);
    }
    return n;
  }

  @Test
  void structuredEventRoundTripsByteForByte() throws Exception {
    String event =
        "{\"type\":\"com.example.order.placed\",\"specversion\":\"1.0\",\"id\":\"o-1\","
            + "\"source\":\"/shop/web\",\"time\":\"2026-10-01T12:00:00.50+02:00\","
            + "\"datacontenttype\":\"application/json\",\"priority\":3,\"ratio\":2.50,"
            + "\"express\":true,\"data\":{\"sku\": \"A-7\", \"qty\": 2}}";
    HttpResponse<String> r =
        post(EVENTS + "?partition=1", "application/cloudevents+json", event.getBytes());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode a = HttpTestSupport.json(r);
    assertThat(a.get("events").get(0).get("status").asText()).isEqualTo("appended");
    assertThat(a.get("events").get(0).get("partition").asInt()).isEqualTo(1);
    assertThat(a.get("events").get(0).get("offset").asLong()).isZero();
    HttpResponse<String> f =
        h.get("/v1/namespaces/demo/streams/orders/partitions/1/events?offset=0");
    assertThat(f.statusCode()).isEqualTo(200);
    assertThat(f.headers().firstValue("content-type"))
        .hasValue("application/cloudevents-batch+json");
    assertThat(f.headers().firstValue("Loam-Next-Offset")).hasValue("1");
    assertThat(f.body()).isEqualTo("[" + event + "]");
    // the record is the Kafka binding's binary-mode layout
    var rec =
        h.node
            .log()
            .fetch("demo", "orders", 1, 0, 1 << 20, java.time.Duration.ZERO)
            .get()
            .records()
            .get(0);
    assertThat(rec.headers().stream().map(Header::key))
        .containsExactly(
            "ce_type",
            "ce_specversion",
            "ce_id",
            "ce_source",
            "ce_time",
            "content-type",
            "ce_priority",
            "ce_ratio",
            "ce_express",
            "loam_ce_types");
    assertThat(new String(rec.value(), StandardCharsets.UTF_8))
        .isEqualTo("{\"sku\": \"A-7\", \"qty\": 2}");
  }

  @Test
  void sdkStructuredAndProtobufEventsReadBackInEveryMode() throws Exception {
    io.cloudevents.CloudEvent e =
        CloudEventBuilder.v1()
            .withId("sdk-1")
            .withSource(URI.create("/sdk"))
            .withType("t")
            .withTime(OffsetDateTime.parse("2026-10-01T10:00:00.5Z"))
            .withExtension("count", 7)
            .withExtension("flag", true)
            .withData("text/plain", "hello".getBytes())
            .build();
    byte[] json = new JsonFormat().serialize(e);
    assertThat(post(EVENTS + "?partition=0", "application/cloudevents+json", json).statusCode())
        .isEqualTo(200);
    io.cloudevents.CloudEvent e2 = CloudEventBuilder.v1(e).withId("sdk-2").build();
    assertThat(
            post(
                    EVENTS + "?partition=0",
                    "application/cloudevents+protobuf",
                    new ProtobufFormat().serialize(e2))
                .statusCode())
        .isEqualTo(200);
    String base = "/v1/namespaces/demo/streams/orders/partitions/0/events?offset=0";
    // structured: the SDK reads each element of the batch
    JsonNode batch = HttpTestSupport.JSON.readTree(getBytes(base).body());
    assertThat(batch).hasSize(2);
    assertThat(new JsonFormat().deserialize(HttpTestSupport.JSON.writeValueAsBytes(batch.get(0))))
        .isEqualTo(e);
    assertThat(new JsonFormat().deserialize(HttpTestSupport.JSON.writeValueAsBytes(batch.get(1))))
        .isEqualTo(e2);
    // protobuf batch
    HttpResponse<byte[]> pb = getBytes(base + "&mode=protobuf");
    assertThat(pb.headers().firstValue("content-type"))
        .hasValue("application/cloudevents-batch+protobuf");
    // CloudEventBatch { repeated CloudEvent events = 1; }
    com.google.protobuf.CodedInputStream in =
        com.google.protobuf.CodedInputStream.newInstance(pb.body());
    java.util.List<io.cloudevents.CloudEvent> events = new java.util.ArrayList<>();
    while (in.readTag() == ((1 << 3) | 2)) {
      events.add(new ProtobufFormat().deserialize(in.readByteArray()));
    }
    assertThat(in.isAtEnd()).isTrue();
    assertThat(events).containsExactly(e, e2);
    // binary: one record as one message
    HttpResponse<byte[]> bin = getBytes(base + "&mode=binary");
    assertThat(bin.statusCode()).isEqualTo(200);
    assertThat(bin.headers().firstValue("ce-id")).hasValue("sdk-1");
    assertThat(bin.headers().firstValue("ce-count")).hasValue("7");
    assertThat(bin.headers().firstValue("content-type")).hasValue("text/plain");
    assertThat(bin.headers().firstValue("Loam-Offset")).hasValue("0");
    assertThat(bin.headers().firstValue("Loam-Next-Offset")).hasValue("1");
    assertThat(new String(bin.body(), StandardCharsets.UTF_8)).isEqualTo("hello");
  }

  @Test
  void binaryModeRoundTripsHeadersAndBody() throws Exception {
    HttpResponse<String> r =
        h.send(
            h.req(EVENTS + "?partition=2")
                .header("ce-specversion", "1.0")
                .header("ce-id", "caf%C3%A9")
                .header("ce-source", "/shop/web")
                .header("ce-type", "com.example.order.placed")
                .header("ce-partitionkey", "customer-9")
                .header("content-type", "application/octet-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {0, 1, (byte) 0xff}))
                .build());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    HttpResponse<byte[]> bin =
        getBytes("/v1/namespaces/demo/streams/orders/partitions/2/events?offset=0&mode=binary");
    assertThat(bin.headers().firstValue("ce-id")).hasValue("caf%C3%A9");
    assertThat(bin.headers().firstValue("ce-partitionkey")).hasValue("customer-9");
    assertThat(bin.headers().firstValue("content-type")).hasValue("application/octet-stream");
    assertThat(bin.body()).containsExactly(0, 1, 0xff);
    HttpResponse<String> s =
        h.get("/v1/namespaces/demo/streams/orders/partitions/2/events?offset=0");
    assertThat(s.body()).contains("\"id\":\"café\"").contains("\"data_base64\":\"AAH/\"");
    // the wait ends empty: 204
    HttpResponse<byte[]> empty =
        getBytes("/v1/namespaces/demo/streams/orders/partitions/2/events?offset=1&mode=binary");
    assertThat(empty.statusCode()).isEqualTo(204);
  }

  @Test
  void aBatchIsAllOrNothingAndNamesTheEventAndAttribute() throws Exception {
    String ok = "{\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\"}";
    String bad =
        "{\"specversion\":\"1.0\",\"id\":\"b\",\"source\":\"/s\",\"type\":\"t\",\"time\":\"noon\"}";
    HttpResponse<String> r =
        post(EVENTS, "application/cloudevents-batch+json", ("[" + ok + "," + bad + "]").getBytes());
    assertThat(r.statusCode()).isEqualTo(400);
    JsonNode p = HttpTestSupport.json(r);
    assertThat(p.get("code").asText()).isEqualTo("invalid");
    assertThat(p.get("detail").asText())
        .isEqualTo("events[1].time: \"noon\" is not an RFC 3339 date-time");
    assertThat(stored()).isZero();
  }

  @Test
  void duplicatesInsideABatchAreCoalesced() throws Exception {
    String a = "{\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"/s\",\"type\":\"t\",\"data\":1}";
    String b = "{\"specversion\":\"1.0\",\"id\":\"b\",\"source\":\"/s\",\"type\":\"t\"}";
    String a2 =
        "{\"specversion\":\"1.0\",\"id\":\"a\",\"source\":\"/s\",\"type\":\"t2\",\"data\":2}";
    HttpResponse<String> r =
        post(
            EVENTS,
            "application/cloudevents-batch+json",
            ("[" + a + "," + b + "," + a2 + "]").getBytes());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode ev = HttpTestSupport.json(r).get("events");
    assertThat(ev.get(0).get("status").asText()).isEqualTo("appended");
    assertThat(ev.get(1).get("status").asText()).isEqualTo("appended");
    assertThat(ev.get(2).get("status").asText()).isEqualTo("duplicate");
    assertThat(ev.get(2).get("partition")).isEqualTo(ev.get(0).get("partition"));
    assertThat(ev.get(2).get("offset")).isEqualTo(ev.get(0).get("offset"));
    assertThat(stored()).isEqualTo(2);
  }

  @Test
  void notCloudEventsIs415() throws Exception {
    HttpResponse<String> r = post(EVENTS, "application/json", "{}".getBytes());
    assertThat(r.statusCode()).isEqualTo(415);
    assertThat(HttpTestSupport.json(r).get("code").asText()).isEqualTo("unsupported_media_type");
    assertThat(stored()).isZero();
  }

  @Test
  void partitionFromTheQueryElseThePartitionKeyElseTheIdempotencyKey() throws Exception {
    String keyed =
        "{\"specversion\":\"1.0\",\"id\":\"k\",\"source\":\"/s\",\"type\":\"t\",\"partitionkey\":\"customer-9\"}";
    JsonNode k =
        HttpTestSupport.json(post(EVENTS, "application/cloudevents+json", keyed.getBytes()));
    assertThat(k.get("events").get(0).get("partition").asInt())
        .isEqualTo(Partitioning.partitionForKey("customer-9".getBytes(), 4));
    String keyless = "{\"specversion\":\"1.0\",\"id\":\"n\",\"source\":\"/s\",\"type\":\"t\"}";
    int expected =
        (ByteBuffer.wrap(CloudEvent.idempotencyKey("/s", "n")).getInt() & 0x7fffffff) % 4;
    for (int i = 0; i < 2; i++) {
      JsonNode n =
          HttpTestSupport.json(post(EVENTS, "application/cloudevents+json", keyless.getBytes()));
      assertThat(n.get("events").get(0).get("partition").asInt()).isEqualTo(expected);
    }
    String keyed2 = keyed.replace("\"id\":\"k\"", "\"id\":\"k2\"");
    JsonNode q =
        HttpTestSupport.json(
            post(EVENTS + "?partition=3", "application/cloudevents+json", keyed2.getBytes()));
    assertThat(q.get("events").get(0).get("partition").asInt()).isEqualTo(3);
    HttpResponse<String> out =
        post(
            EVENTS + "?partition=9",
            "application/cloudevents+json",
            keyed.replace("\"id\":\"k\"", "\"id\":\"k3\"").getBytes());
    assertThat(out.statusCode()).isEqualTo(400);
  }

  @Test
  void plainRecordsReadBackAsSynthesizedEnvelopesOrTheirCeHeaders() throws Exception {
    long id = h.node.log().describeStream("demo", "orders").get().id();
    h.node
        .log()
        .append(
            "demo",
            "orders",
            List.of(
                AppendRecord.of("user-1", "{\"a\":1}")
                    .withTimestamp(1_718_000_000_007L)
                    .toPartition(3),
                AppendRecord.of((String) null, "x")
                    .withHeaders(
                        List.of(
                            new Header("ce_specversion", "1.0".getBytes()),
                            new Header("ce_id", "p".getBytes()),
                            new Header("ce_source", "/kafka".getBytes()),
                            new Header("ce_type", "t".getBytes()),
                            new Header("content-type", "text/plain".getBytes())))
                    .toPartition(3)))
        .get();
    HttpResponse<String> f =
        h.get("/v1/namespaces/demo/streams/orders/partitions/3/events?offset=0");
    assertThat(f.body())
        .isEqualTo(
            "[{\"specversion\":\"1.0\",\"id\":\""
                + id
                + "-0\",\"source\":\"/namespaces/demo/streams/orders/partitions/3\","
                + "\"type\":\"dev.loam.stream.record\",\"time\":\"2024-06-10T06:13:20.007Z\","
                + "\"partitionkey\":\"user-1\",\"datacontenttype\":\"application/json\",\"data\":{\"a\":1}},"
                + "{\"specversion\":\"1.0\",\"id\":\"p\",\"source\":\"/kafka\",\"type\":\"t\","
                + "\"datacontenttype\":\"text/plain\",\"data\":\"x\"}]");
  }

  private static final String ONE =
      "{\"specversion\":\"1.0\",\"id\":\"r-1\",\"source\":\"/retry\",\"type\":\"t\",\"data\":1}";

  @Test
  void aRetryWithinTheWindowNeverAppendsTwiceAndNamesTheOriginalOffset() throws Exception {
    JsonNode first =
        HttpTestSupport.json(post(EVENTS, "application/cloudevents+json", ONE.getBytes()));
    assertThat(first.get("events").get(0).get("status").asText()).isEqualTo("appended");
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r = post(EVENTS, "application/cloudevents+json", ONE.getBytes());
      assertThat(r.statusCode()).isEqualTo(200);
      JsonNode e = HttpTestSupport.json(r).get("events").get(0);
      assertThat(e.get("status").asText()).isEqualTo("duplicate");
      assertThat(e.get("partition")).isEqualTo(first.get("events").get(0).get("partition"));
      assertThat(e.get("offset")).isEqualTo(first.get("events").get(0).get("offset"));
      assertThat(HttpTestSupport.json(r).get("token").asText()).isEqualTo("0");
    }
    // the same event in binary mode and in a batch is the same source + id
    HttpResponse<String> batch =
        post(EVENTS, "application/cloudevents-batch+json", ("[" + ONE + "]").getBytes());
    assertThat(HttpTestSupport.json(batch).get("events").get(0).get("status").asText())
        .isEqualTo("duplicate");
    assertThat(stored()).isEqualTo(1);
  }

  @Test
  void aKeyPendingUnderAnotherClaimIsInFlight409WithRetryAfter() throws Exception {
    byte[] key = CloudEvent.idempotencyKey("/retry", "r-1");
    var claims =
        h.node
            .log()
            .claimEvents("demo", "orders", List.of(key), java.time.Duration.ofMinutes(2))
            .get();
    assertThat(claims.claims().get(0).status()).isEqualTo(dev.loam.api.EventLedger.Status.CLAIMED);
    String other = ONE.replace("r-1", "r-2");
    HttpResponse<String> r =
        post(
            EVENTS,
            "application/cloudevents-batch+json",
            ("[" + ONE + "," + other + "]").getBytes());
    assertThat(r.statusCode()).isEqualTo(409);
    long retryAfter = Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 121L);
    JsonNode ev = HttpTestSupport.json(r).get("events");
    assertThat(ev.get(0).get("status").asText()).isEqualTo("in_flight");
    assertThat(ev.get(0).has("offset")).isFalse();
    assertThat(ev.get(1).get("status").asText()).isEqualTo("appended");
    assertThat(stored()).isEqualTo(1);
    // the claim's holder completes: the retry is a duplicate of what it wrote
    h.node
        .log()
        .completeEvents(
            "demo",
            "orders",
            claims.claimId(),
            java.time.Duration.ofHours(1),
            List.of(new dev.loam.api.EventLedger.Completed(key, 3, 42)))
        .get();
    JsonNode again =
        HttpTestSupport.json(post(EVENTS, "application/cloudevents+json", ONE.getBytes()));
    assertThat(again.get("events").get(0).get("status").asText()).isEqualTo("duplicate");
    assertThat(again.get("events").get(0).get("offset").asLong()).isEqualTo(42);
  }

  @Test
  void aDefinitelyFailedAppendReleasesItsClaims() throws Exception {
    HttpResponse<String> refused =
        post(EVENTS + "?partition=9", "application/cloudevents+json", ONE.getBytes());
    assertThat(refused.statusCode()).isEqualTo(400);
    HttpResponse<String> r = post(EVENTS, "application/cloudevents+json", ONE.getBytes());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(HttpTestSupport.json(r).get("events").get(0).get("status").asText())
        .isEqualTo("appended");
  }

  @Test
  void plainProduceIsNeverDeduplicatedEvenWithCeHeaders() throws Exception {
    String rec =
        "{\"records\":[{\"value\":\"x\",\"partition\":0,\"headers\":{\"ce_specversion\":\"1.0\","
            + "\"ce_id\":\"r-1\",\"ce_source\":\"/retry\",\"ce_type\":\"t\"}}]}";
    for (int i = 0; i < 2; i++) {
      HttpResponse<String> r = h.post("/v1/namespaces/demo/streams/orders/records", rec);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }
    assertThat(highWatermark(0)).isEqualTo(2);
  }
}
