package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.CommitUnknownException;
import dev.loam.api.Log;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every Loam error kind, raised by a log whose every call fails, reaches the client with its
 * documented status, code and headers, and without a stack trace.
 */
class ErrorMappingIT {
  static int expectedStatus(Kind k) {
    return switch (k) {
      case INVALID -> 400;
      case NOT_FOUND -> 404;
      case CONFLICT, FENCED, NOT_OWNER -> 409;
      case UNAVAILABLE -> 503;
      case OUTCOME_UNKNOWN -> 504;
      case CORRUPTION, INTERNAL -> 500;
    };
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void eachKindHasItsStatus(Kind kind) throws Exception {
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    Log failing =
        (Log)
            Proxy.newProxyInstance(
                Log.class.getClassLoader(),
                new Class<?>[] {Log.class},
                (proxy, method, args) -> CompletableFuture.failedFuture(failure.get()));
    failure.set(
        kind == Kind.OUTCOME_UNKNOWN
            ? new CommitUnknownException("commit outcome unknown object=wal/x", null)
            : new LoamException(kind, "boom stream=ns/s"));
    try (LoamHttpServer server =
        LoamHttpServer.builder()
            .log(failing)
            .port(0)
            .ioThreads(1)
            // Authentication would ask the failing log whether keys exist; not what this tests.
            .authentication(Authentication.NONE)
            .start()) {
      HttpClient client = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + server.port();
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/ns/streams/s/records"))
                  .header("content-type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString("{\"records\":[{\"value\":\"v\"}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(expectedStatus(kind));
      JsonNode b = HttpTestSupport.JSON.readTree(r.body());
      assertThat(b.path("code").asText()).isEqualTo(kind.name().toLowerCase(java.util.Locale.ROOT));
      assertThat(b.path("error").path("kind").asText()).isEqualTo(kind.name());
      assertThat(b.path("error").path("message").asText()).isEqualTo(failure.get().getMessage());
      assertThat(r.body()).doesNotContain("\tat ");
      assertThat(r.headers().firstValue("retry-after").isPresent())
          .isEqualTo(kind == Kind.UNAVAILABLE);

      // A non-Loam failure (a bug) is INTERNAL, and its message stays in the server log.
      failure.set(new IllegalStateException("secret internals"));
      HttpResponse<String> bug =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/v1/namespaces")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(bug.statusCode()).isEqualTo(500);
      assertThat(bug.body()).doesNotContain("secret internals").contains("\"kind\":\"INTERNAL\"");

      // Health reports the log unavailable.
      failure.set(new LoamException(Kind.UNAVAILABLE, "metastore down"));
      HttpResponse<String> health =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/v1/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(503);
      assertThat(health.headers().firstValue("retry-after")).hasValue("1");
    }
  }
}
