package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pins what the router answers to malformed, misdirected and multiply-wrong requests: the status,
 * headers, problem document, metrics label, timeout and long-poll and write flags of each request
 * in {@code routing-golden.tsv}. The expected lines were recorded from the if-chain router the
 * route table replaced, so the table keeps every refusal and its precedence. Runs without a socket.
 */
class RoutingGoldenTest {
  private Path dir;
  private LoamNode node;

  @BeforeEach
  void start() throws IOException {
    dir = Files.createTempDirectory("loam-http-routing");
    node = LoamNode.builder().nodeId("rt").dataDir(dir).start();
    node.log().createNamespace("d").join();
    node.log().createStream("d", "s", StreamSpec.standard(2)).join();
  }

  @AfterEach
  void stop() throws IOException {
    node.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void everyRequestGetsTheRecordedAnswer() throws Exception {
    Api api = new Api(node.log(), null, new HttpMetrics(), LIMITS);
    List<String> diffs = new ArrayList<>();
    List<String> lines = golden();
    assertThat(lines).hasSizeGreaterThan(50);
    for (String line : lines) {
      String[] c = line.split("\t", 4);
      String got = run(c[0], c[1], c[2], api::route);
      if (!got.equals(c[3])) {
        diffs.add(c[0] + " " + c[1] + " " + c[2] + "\n  want " + c[3] + "\n  got  " + got);
      }
    }
    assertThat(diffs).isEmpty();
  }

  static final Api.Limits LIMITS = new Api.Limits(1 << 20, 100, 1 << 20, 1 << 20, 1000, 30_000);

  static List<String> golden() throws IOException {
    try (InputStream in = RoutingGoldenTest.class.getResourceAsStream("/routing-golden.tsv")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }

  /** One request's answer as one line; the node epoch is left out (it differs per run). */
  static String run(String method, String uri, String body, Function<FullHttpRequest, Api.Call> api)
      throws Exception {
    FullHttpRequest req =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1,
            HttpMethod.valueOf(method),
            uri,
            Unpooled.wrappedBuffer(body.getBytes(StandardCharsets.UTF_8)));
    if (!body.isEmpty()) {
      req.headers().set("content-type", "application/json");
    }
    Api.Call call;
    try {
      call = api.apply(req);
    } finally {
      req.release();
    }
    HttpReply r;
    try {
      r = call.reply().get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      r = Errors.toReply(e.getCause());
    }
    String text = new String(r.body(), StandardCharsets.UTF_8).replaceAll("\"epoch\":\\d+", "");
    return call.route()
        + " t="
        + call.timeoutMillis()
        + " lp="
        + call.longPoll()
        + " w="
        + call.write()
        + " "
        + r.status().code()
        + " "
        + new TreeMap<>(r.headers())
        + " "
        + text;
  }
}
