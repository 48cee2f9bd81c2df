package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.http.internal.Api;
import dev.loam.http.internal.HttpMetrics;
import dev.loam.http.internal.HttpReply;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random bytes and random JSON thrown at the produce route never yield a 5xx and never change
 * stored data beyond the records a 200 acknowledged. Runs the routes without a socket.
 */
class ProduceFuzzPropertyTest {
  static final int SEED_RECORDS = 5;
  static Path dir;
  static LoamNode node;
  static Api api;
  static final AtomicLong acknowledged = new AtomicLong();

  @BeforeContainer
  static void start() throws Exception {
    dir = Files.createTempDirectory("loam-http-fuzz");
    node = LoamNode.builder().nodeId("fz").dataDir(dir).settings(HttpTestSupport.FAST).start();
    api =
        new Api(
            node.log(),
            node,
            new HttpMetrics(),
            new Api.Limits(1 << 20, 100, 1 << 20, 1 << 20, 1000, 30_000));
    node.log().createNamespace("fz").join();
    node.log().createStream("fz", "s", StreamSpec.standard(2)).join();
    List<AppendRecord> seed = new ArrayList<>();
    for (int i = 0; i < SEED_RECORDS; i++) {
      seed.add(AppendRecord.of("k", "seed-" + i).toPartition(0));
    }
    node.log().append("fz", "s", seed).join();
  }

  @AfterContainer
  static void stop() throws Exception {
    node.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Property(tries = 400)
  void randomBodiesNeverYieldServerErrorsNorCorruptStoredData(@ForAll("bodies") byte[] body)
      throws Exception {
    FullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1,
            HttpMethod.POST,
            "/v1/namespaces/fz/streams/s/records",
            Unpooled.wrappedBuffer(body));
    req.headers().set("content-type", "application/json");
    HttpReply reply;
    try {
      reply = reply(api.route(req));
    } finally {
      req.release();
    }
    String text = new String(reply.body(), StandardCharsets.UTF_8);
    assertThat(reply.status().code()).as(text).isLessThan(500);
    assertThat(text).doesNotContain("\tat ");
    if (reply.status().code() == 200) {
      JsonNode r = HttpTestSupport.JSON.readTree(text);
      if (!r.path("duplicate").asBoolean()) {
        acknowledged.addAndGet(r.path("records").size());
      }
    }
    StreamDescription d = node.log().describeStream("fz", "s").get(10, TimeUnit.SECONDS);
    long total =
        d.partitions().stream().mapToLong(StreamDescription.PartitionBounds::highWatermark).sum();
    assertThat(total).isEqualTo(SEED_RECORDS + acknowledged.get());
    FetchResult seed =
        node.log().fetch("fz", "s", 0, 0, 1 << 20, Duration.ZERO).get(10, TimeUnit.SECONDS);
    for (int i = 0; i < SEED_RECORDS; i++) {
      assertThat(seed.records().get(i).valueAsString()).isEqualTo("seed-" + i);
    }
  }

  static HttpReply reply(Api.Call call) throws Exception {
    try {
      return call.reply().get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return dev.loam.http.internal.Errors.toReply(e.getCause());
    }
  }

  @Provide
  Arbitrary<byte[]> bodies() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMaxSize(200),
        json().map(s -> s.getBytes(StandardCharsets.UTF_8)),
        mutated().map(s -> s.getBytes(StandardCharsets.UTF_8)),
        produceBodies().map(s -> s.getBytes(StandardCharsets.UTF_8)));
  }

  static final String VALID =
      "{\"records\":[{\"key\":\"k\",\"value\":\"v\",\"headers\":{\"h\":\"x\"},\"timestamp\":5,"
          + "\"partition\":1}]}";

  /** A valid body with one character inserted, removed or replaced. */
  static Arbitrary<String> mutated() {
    return net.jqwik.api.Combinators.combine(
            Arbitraries.integers().between(0, VALID.length() - 1),
            Arbitraries.chars().ascii(),
            Arbitraries.integers().between(0, 2))
        .as(
            (at, c, op) ->
                switch (op) {
                  case 0 -> VALID.substring(0, at) + c + VALID.substring(at);
                  case 1 -> VALID.substring(0, at) + VALID.substring(at + 1);
                  default -> VALID.substring(0, at) + c + VALID.substring(at + 1);
                });
  }

  static final List<String> FIELDS =
      List.of(
          "records",
          "key",
          "value",
          "headers",
          "timestamp",
          "partition",
          "encoding",
          "key_encoding",
          "value_encoding",
          "producer_id",
          "producer_epoch",
          "sequence",
          "x");

  static Arbitrary<String> scalar() {
    return Arbitraries.oneOf(
        Arbitraries.just("null"),
        Arbitraries.of("true", "false", "\"utf-8\"", "\"base64\"", "\"AAH/\"", "\"\\ud800\""),
        Arbitraries.longs().map(l -> Long.toString(l)),
        Arbitraries.of("-1", "0", "1", "2", "1e400", "1.5", "9223372036854775808", "2147483648"),
        Arbitraries.strings()
            .ofMaxLength(12)
            .map(s -> HttpTestSupport.JSON.valueToTree(s).toString()));
  }

  /** Random JSON over the produce route's field names. */
  static Arbitrary<String> json() {
    return Arbitraries.recursive(
        ProduceFuzzPropertyTest::scalar, ProduceFuzzPropertyTest::nest, 0, 3);
  }

  static Arbitrary<String> nest(Arbitrary<String> inner) {
    return Arbitraries.oneOf(
        inner,
        inner.list().ofMaxSize(3).map(l -> "[" + String.join(",", l) + "]"),
        net.jqwik.api.Combinators.combine(Arbitraries.of(FIELDS), inner)
            .as((k, v) -> "\"" + k + "\":" + v)
            .list()
            .ofMaxSize(4)
            .map(l -> "{" + String.join(",", l) + "}"));
  }

  /** Bodies shaped like produce requests with random members in each record. */
  static Arbitrary<String> produceBodies() {
    Arbitrary<String> member =
        net.jqwik.api.Combinators.combine(Arbitraries.of(FIELDS.subList(1, 6)), scalar())
            .as((k, v) -> "\"" + k + "\":" + v);
    Arbitrary<String> record =
        member
            .list()
            .ofMaxSize(4)
            .uniqueElements(m -> m.substring(0, m.indexOf(':')))
            .map(l -> "{" + String.join(",", l) + "}");
    Arbitrary<List<String>> top =
        net.jqwik.api.Combinators.combine(Arbitraries.of(FIELDS.subList(6, 12)), scalar())
            .as((k, v) -> "\"" + k + "\":" + v)
            .list()
            .ofMaxSize(3)
            .uniqueElements(m -> m.substring(0, m.indexOf(':')));
    return net.jqwik.api.Combinators.combine(record.list().ofMinSize(1).ofMaxSize(3), top)
        .as(
            (recs, extra) -> {
              List<String> parts = new ArrayList<>(extra);
              parts.add("\"records\":[" + String.join(",", recs) + "]");
              return "{" + String.join(",", parts) + "}";
            });
  }
}
