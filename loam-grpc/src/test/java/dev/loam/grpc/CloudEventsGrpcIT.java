package dev.loam.grpc;

import static dev.loam.grpc.GrpcTestSupport.failure;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.EventLedger;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import dev.loam.grpc.client.LoamGrpcClient;
import dev.loam.grpc.v1.CloudEventsServiceGrpc;
import dev.loam.grpc.v1.EventOutcome;
import dev.loam.grpc.v1.EventResult;
import dev.loam.grpc.v1.IngestEventsRequest;
import dev.loam.grpc.v1.IngestEventsResponse;
import dev.loam.grpc.v1.cloudevents.CloudEvent.CloudEventAttributeValue;
import dev.loam.http.Authentication;
import dev.loam.http.LoamHttpServer;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.protobuf.ProtobufFormat;
import io.grpc.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CloudEventsService/Ingest} against a started server, with the generated stubs and events
 * serialized by the unmodified CloudEvents Java SDK's protobuf format: per-event answers (appended,
 * duplicate with the first write's position, in_flight with a retry delay), validation refusals
 * naming the index and attribute that store nothing, keys and roles, and the events read back over
 * HTTP equal to what was sent.
 */
class CloudEventsGrpcIT {
  @TempDir Path dir;

  private static GrpcTestSupport started(Path dir, Authentication auth) {
    GrpcTestSupport t = new GrpcTestSupport(dir, b -> b.authentication(auth));
    t.node.log().createNamespace("demo").join();
    t.node.log().createStream("demo", "orders", StreamSpec.standard(4)).join();
    return t;
  }

  /** The SDK's protobuf serialization of {@code e}, parsed as the published message. */
  static dev.loam.grpc.v1.cloudevents.CloudEvent proto(CloudEvent e) {
    try {
      return dev.loam.grpc.v1.cloudevents.CloudEvent.parseFrom(new ProtobufFormat().serialize(e));
    } catch (InvalidProtocolBufferException x) {
      throw new AssertionError(x);
    }
  }

  static CloudEvent event(String id) {
    return CloudEventBuilder.v1()
        .withId(id)
        .withSource(URI.create("/shop/web"))
        .withType("com.example.order.placed")
        .withData("text/plain", ("order " + id).getBytes(StandardCharsets.UTF_8))
        .build();
  }

  static IngestEventsRequest request(CloudEvent... events) {
    IngestEventsRequest.Builder b =
        IngestEventsRequest.newBuilder().setNamespace("demo").setStream("orders");
    for (CloudEvent e : events) {
      b.addEvents(proto(e));
    }
    return b.build();
  }

  static CloudEventsServiceGrpc.CloudEventsServiceBlockingStub stub(GrpcTestSupport t) {
    return CloudEventsServiceGrpc.newBlockingStub(t.client.channel(t.address()));
  }

  static long stored(GrpcTestSupport t) {
    long n = 0;
    for (var p : t.node.log().describeStream("demo", "orders").join().partitions()) {
      n += p.highWatermark();
    }
    return n;
  }

  @Test
  void appendedThenDuplicateWithTheFirstOffsetOnRetry() {
    try (GrpcTestSupport t = started(dir, Authentication.NONE)) {
      IngestEventsRequest req = request(event("a-1"), event("a-2"), event("a-1"));
      IngestEventsResponse first = stub(t).ingest(req);
      assertThat(first.getResultsList()).extracting(EventResult::getIndex).containsExactly(0, 1, 2);
      EventResult a1 = first.getResults(0);
      EventResult a2 = first.getResults(1);
      assertThat(a1.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
      assertThat(a2.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
      assertThat(a1.getRetryAfterMs()).isZero();
      // a repeat of source + id inside one call is coalesced into the first
      assertThat(first.getResults(2).getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_DUPLICATE);
      assertThat(first.getResults(2).getPartition()).isEqualTo(a1.getPartition());
      assertThat(first.getResults(2).getOffset()).isEqualTo(a1.getOffset());
      assertThat(first.getConsistencyToken()).isPositive();
      assertThat(stored(t)).isEqualTo(2);

      IngestEventsResponse retry = stub(t).ingest(req);
      for (int i = 0; i < 3; i++) {
        EventResult r = retry.getResults(i);
        EventResult orig = i == 1 ? a2 : a1;
        assertThat(r.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_DUPLICATE);
        assertThat(r.getPartition()).isEqualTo(orig.getPartition());
        assertThat(r.getOffset()).isEqualTo(orig.getOffset());
      }
      assertThat(retry.getConsistencyToken()).isZero();
      assertThat(stored(t)).isEqualTo(2);

      // the partition field puts every event of the call on that partition
      IngestEventsResponse pinned =
          stub(t).ingest(request(event("p-1"), event("p-2")).toBuilder().setPartition(3).build());
      assertThat(pinned.getResultsList()).extracting(EventResult::getPartition).containsOnly(3);
    }
  }

  @Test
  void aKeyPendingUnderAnotherClaimIsInFlightWithARetryDelay() {
    try (GrpcTestSupport t = started(dir, Authentication.NONE)) {
      byte[] key = dev.loam.cloudevents.CloudEvent.idempotencyKey("/shop/web", "f-1");
      EventLedger.Claims claims =
          t.node.log().claimEvents("demo", "orders", List.of(key), Duration.ofMinutes(2)).join();
      assertThat(claims.claims().get(0).status()).isEqualTo(EventLedger.Status.CLAIMED);

      IngestEventsResponse r = stub(t).ingest(request(event("f-1"), event("f-2")));
      EventResult held = r.getResults(0);
      assertThat(held.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_IN_FLIGHT);
      assertThat(held.getPartition()).isEqualTo(-1);
      assertThat(held.getOffset()).isEqualTo(-1);
      assertThat(held.getRetryAfterMs()).isBetween(1_000L, 121_000L);
      assertThat(r.getResults(1).getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
      assertThat(r.getResults(1).getRetryAfterMs()).isZero();
      assertThat(stored(t)).isEqualTo(1);

      // the claim's holder completes: a retry is a duplicate naming what it wrote
      t.node
          .log()
          .completeEvents(
              "demo",
              "orders",
              claims.claimId(),
              Duration.ofHours(1),
              List.of(new EventLedger.Completed(key, 2, 42)))
          .join();
      EventResult again = stub(t).ingest(request(event("f-1"))).getResults(0);
      assertThat(again.getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_DUPLICATE);
      assertThat(again.getPartition()).isEqualTo(2);
      assertThat(again.getOffset()).isEqualTo(42);
    }
  }

  @Test
  void anInvalidEventRefusesTheWholeBatchNamingIndexAndAttribute() {
    try (GrpcTestSupport t = started(dir, Authentication.NONE)) {
      var badTime =
          proto(event("v-2")).toBuilder()
              .putAttributes(
                  "time", CloudEventAttributeValue.newBuilder().setCeString("yesterday").build())
              .build();
      IngestEventsRequest req =
          request(event("v-1")).toBuilder()
              .addEvents(badTime)
              .addEvents(proto(event("v-3")))
              .build();
      ErrorInfo info = failure(Status.Code.INVALID_ARGUMENT, "invalid", () -> stub(t).ingest(req));
      assertThat(info.getMetadataMap())
          .containsEntry("index", "1")
          .containsEntry("attribute", "time")
          .containsEntry("namespace", "demo")
          .containsEntry("stream", "orders");

      var oldSpec = proto(event("v-4")).toBuilder().setSpecVersion("0.3").build();
      ErrorInfo spec =
          failure(
              Status.Code.INVALID_ARGUMENT,
              "invalid",
              () ->
                  stub(t)
                      .ingest(
                          IngestEventsRequest.newBuilder()
                              .setNamespace("demo")
                              .setStream("orders")
                              .addEvents(oldSpec)
                              .build()));
      assertThat(spec.getMetadataMap())
          .containsEntry("index", "0")
          .containsEntry("attribute", "specversion");

      var noSource = proto(event("v-5")).toBuilder().clearSource().build();
      ErrorInfo source =
          failure(
              Status.Code.INVALID_ARGUMENT,
              "invalid",
              () -> stub(t).ingest(request(event("v-6")).toBuilder().addEvents(noSource).build()));
      assertThat(source.getMetadataMap())
          .containsEntry("index", "1")
          .containsEntry("attribute", "source");
      assertThat(stored(t)).isZero();

      // nothing was claimed either: the valid events of the refused batches append afterwards
      IngestEventsResponse ok = stub(t).ingest(request(event("v-1"), event("v-3")));
      assertThat(ok.getResultsList())
          .extracting(EventResult::getOutcome)
          .containsOnly(EventOutcome.EVENT_OUTCOME_APPENDED);

      failure(
          Status.Code.INVALID_ARGUMENT,
          "invalid",
          () -> stub(t).ingest(request(event("v-7")).toBuilder().setPartition(-1).build()));
      failure(
          Status.Code.NOT_FOUND,
          "not_found",
          () -> stub(t).ingest(request(event("v-8")).toBuilder().setStream("nope").build()));
      // a partition the stream does not have fails the append: the claim is released at once
      ErrorInfo missing =
          failure(
              Status.Code.INVALID_ARGUMENT,
              "invalid",
              () -> stub(t).ingest(request(event("v-9")).toBuilder().setPartition(9).build()));
      assertThat(missing.getMetadataMap()).containsEntry("partition", "9");
      assertThat(stub(t).ingest(request(event("v-9"))).getResults(0).getOutcome())
          .isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
    }
  }

  @Test
  void needsAProduceKeyInTheNamespace() {
    try (GrpcTestSupport t = started(dir, Authentication.REQUIRED)) {
      t.node.log().createNamespace("other").join();
      String producer =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("demo", Role.PRODUCE)).join().token();
      String consumer =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("demo", Role.CONSUME)).join().token();
      failure(
          Status.Code.UNAUTHENTICATED,
          "unauthenticated",
          () -> stub(t).ingest(request(event("k-1"))));
      try (LoamGrpcClient p = client(t, producer);
          LoamGrpcClient c = client(t, consumer)) {
        failure(
            Status.Code.PERMISSION_DENIED,
            "forbidden",
            () ->
                c.call(
                    ch ->
                        CloudEventsServiceGrpc.newBlockingStub(ch).ingest(request(event("k-1")))));
        failure(
            Status.Code.PERMISSION_DENIED,
            "forbidden",
            () ->
                p.call(
                    ch ->
                        CloudEventsServiceGrpc.newBlockingStub(ch)
                            .ingest(
                                request(event("k-1")).toBuilder().setNamespace("other").build())));
        assertThat(stored(t)).isZero();
        // a namespace-scoped key implies its namespace
        IngestEventsResponse r =
            p.call(
                ch ->
                    CloudEventsServiceGrpc.newBlockingStub(ch)
                        .ingest(request(event("k-1")).toBuilder().setNamespace("").build()));
        assertThat(r.getResults(0).getOutcome()).isEqualTo(EventOutcome.EVENT_OUTCOME_APPENDED);
        assertThat(stored(t)).isEqualTo(1);
      }
    }
  }

  @Test
  void eventsReadBackOverHttpEqualWhatWasSent() throws Exception {
    try (GrpcTestSupport t = started(dir, Authentication.NONE);
        LoamHttpServer http =
            LoamHttpServer.builder()
                .node(t.node)
                .port(0)
                .authentication(Authentication.NONE)
                .start()) {
      List<CloudEvent> sent = new ArrayList<>();
      sent.add(
          CloudEventBuilder.v1()
              .withId("r-1")
              .withSource(URI.create("https://example.com/shop"))
              .withType("com.example.order.placed")
              .withSubject("order-7")
              .withTime(OffsetDateTime.parse("2026-10-01T10:00:00.5Z"))
              .withExtension("count", 7)
              .withExtension("flag", true)
              .withExtension("region", "eu-west")
              .withData("text/plain", "hello".getBytes(StandardCharsets.UTF_8))
              .build());
      sent.add(
          CloudEventBuilder.v1()
              .withId("r-2")
              .withSource(URI.create("/sensors/9"))
              .withType("reading")
              .withData("application/octet-stream", new byte[] {0, 1, (byte) 0xff})
              .build());
      sent.add(
          CloudEventBuilder.v1()
              .withId("r-3")
              .withSource(URI.create("/empty"))
              .withType("ping")
              .build());
      IngestEventsResponse r =
          stub(t)
              .ingest(request(sent.toArray(CloudEvent[]::new)).toBuilder().setPartition(1).build());
      assertThat(r.getResultsList()).extracting(EventResult::getOffset).containsExactly(0L, 1L, 2L);

      HttpResponse<byte[]> res =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(
                              "http://127.0.0.1:"
                                  + http.port()
                                  + "/v1/namespaces/demo/streams/orders/partitions/1/events"
                                  + "?offset=0&mode=structured&min_token="
                                  + r.getConsistencyToken()))
                      .GET()
                      .build(),
                  HttpResponse.BodyHandlers.ofByteArray());
      assertThat(res.statusCode()).isEqualTo(200);
      ObjectMapper json = new ObjectMapper();
      JsonNode batch = json.readTree(res.body());
      List<CloudEvent> read = new ArrayList<>();
      for (JsonNode one : batch) {
        read.add(new JsonFormat().deserialize(json.writeValueAsBytes(one)));
      }
      assertThat(read).containsExactlyElementsOf(sent);
    }
  }

  private static LoamGrpcClient client(GrpcTestSupport t, String key) {
    return LoamGrpcClient.builder().addresses(List.of(t.address())).apiKey(key).build();
  }
}
