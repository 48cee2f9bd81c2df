package dev.loam.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A request whose handling throws (here the LinkageError a host's mixed Jackson versions produce)
 * is answered 500 and logged at ERROR with its method and target, never dropped with an empty reply
 * and a DEBUG line.
 */
class RequestHandlerFailureTest {

  @Test
  void anErrorThrownWhileRoutingIsAnswered500AndLoggedAtErrorWithTheRequest() {
    NoSuchMethodError broken =
        new NoSuchMethodError(
            "'com.fasterxml.jackson.core.JsonGenerator"
                + " com.fasterxml.jackson.core.JsonFactory.createGenerator()'");
    EmbeddedChannel ch = new EmbeddedChannel(new RequestHandler(new State(() -> throwing(broken))));

    String log =
        capturedStderr(
            () ->
                ch.writeInbound(
                    new DefaultFullHttpRequest(
                        HttpVersion.HTTP_1_1,
                        HttpMethod.POST,
                        "/v1/namespaces/shop/streams/orders/records",
                        Unpooled.copiedBuffer("{\"records\":[]}", StandardCharsets.UTF_8))));

    FullHttpResponse resp = ch.readOutbound();
    try {
      assertThat(resp.status().code()).isEqualTo(500);
      assertThat(resp.headers().get(HttpHeaderNames.CONTENT_TYPE))
          .isEqualTo(HttpReply.PROBLEM_JSON);
      assertThat(resp.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
      assertThat(resp.content().toString(StandardCharsets.UTF_8))
          .contains("\"code\":\"internal\"")
          .contains("see the server log");
    } finally {
      resp.release();
    }
    assertThat(log)
        .contains("ERROR")
        .contains("request handler failed")
        .contains("request=\"POST /v1/namespaces/shop/streams/orders/records\"")
        .contains("java.lang.NoSuchMethodError")
        .contains("JsonFactory.createGenerator");
    ch.finishAndReleaseAll();
  }

  @Test
  void theFallbackReplyIsAValidProblemDocumentWrittenWithoutJackson() throws IOException {
    String body = new String(Errors.INTERNAL_FALLBACK.body(), StandardCharsets.UTF_8);
    var parsed = Json.MAPPER.readTree(body);
    assertThat(parsed.get("status").asInt()).isEqualTo(500);
    assertThat(parsed.get("code").asText()).isEqualTo("internal");
    assertThat(parsed.get("error").get("kind").asText()).isEqualTo("INTERNAL");
  }

  @Test
  void anUnexpectedFailureOfTheReplyIsLoggedWithTheRequest() {
    String log =
        capturedStderr(
            () -> {
              HttpReply r =
                  Errors.toReply(
                      new NoClassDefFoundError("com/fasterxml/jackson/core/StreamReadConstraints"),
                      "GET /v1/namespaces");
              assertThat(r.status().code()).isEqualTo(500);
            });
    assertThat(log)
        .contains("ERROR")
        .contains("request=\"GET /v1/namespaces\"")
        .contains("java.lang.NoClassDefFoundError");
  }

  @Test
  void aConnectionResetIsNotAnErrorButAnyOtherConnectionExceptionIs() {
    EmbeddedChannel reset = new EmbeddedChannel(new RequestHandler(new State(() -> null)));
    String quiet =
        capturedStderr(
            () -> reset.pipeline().fireExceptionCaught(new IOException("Connection reset")));
    assertThat(quiet).doesNotContain("ERROR");
    assertThat(reset.isOpen()).isFalse();

    EmbeddedChannel odd = new EmbeddedChannel(new RequestHandler(new State(() -> null)));
    String loud =
        capturedStderr(
            () -> odd.pipeline().fireExceptionCaught(new IllegalStateException("handler bug")));
    assertThat(loud).contains("ERROR").contains("unexpected error on a connection");
    assertThat(loud).contains("IllegalStateException: handler bug");
    assertThat(odd.isOpen()).isFalse();
  }

  private static Api throwing(Error e) {
    throw e;
  }

  /** Runs {@code r} with System.err captured: slf4j-simple, the test binding, writes there. */
  private static String capturedStderr(Runnable r) {
    PrintStream saved = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setErr(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      r.run();
    } finally {
      System.setErr(saved);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** Server state whose API comes from {@code api} (which may throw). */
  private static final class State implements RequestHandler.ServerState {
    private final Supplier<Api> api;
    private final HttpMetrics metrics = new HttpMetrics();

    State(Supplier<Api> api) {
      this.api = api;
    }

    @Override
    public Api api() {
      return api.get();
    }

    @Override
    public HttpMetrics metrics() {
      return metrics;
    }

    @Override
    public boolean closing() {
      return false;
    }

    @Override
    public void track(RequestHandler.Exchange e) {}

    @Override
    public void untrack(RequestHandler.Exchange e) {}
  }
}
