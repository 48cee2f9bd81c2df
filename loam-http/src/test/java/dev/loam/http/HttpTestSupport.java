package dev.loam.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/** A node on a temporary data directory, an HTTP server on an ephemeral loopback port, a client. */
final class HttpTestSupport implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  final LoamNode node;
  final LoamHttpServer server;
  final ExecutorService clientExecutor = Executors.newFixedThreadPool(2);
  final HttpClient client;
  final String base;

  HttpTestSupport(Path dir) {
    this(dir, b -> b);
  }

  HttpTestSupport(Path dir, java.util.function.UnaryOperator<LoamHttpServer.Builder> tweak) {
    this(dir, n -> n, tweak);
  }

  /** With the node's builder adjusted first (its metastore, settings...). */
  HttpTestSupport(
      Path dir,
      java.util.function.UnaryOperator<LoamNode.Builder> nodeTweak,
      java.util.function.UnaryOperator<LoamHttpServer.Builder> tweak) {
    node = nodeTweak.apply(LoamNode.builder().nodeId("n1").dataDir(dir).settings(FAST)).start();
    server = tweak.apply(LoamHttpServer.builder().node(node).port(0).ioThreads(2)).start();
    client =
        HttpClient.newBuilder()
            .executor(clientExecutor)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    base = "http://127.0.0.1:" + server.port();
  }

  HttpRequest.Builder req(String path) {
    return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
  }

  HttpResponse<String> send(HttpRequest r) {
    try {
      return client.send(r, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest r) {
    return client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) {
    return send(req(path).GET().build());
  }

  HttpResponse<String> delete(String path) {
    return send(req(path).DELETE().build());
  }

  HttpResponse<String> post(String path, String json) {
    return send(
        req(path)
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  static JsonNode json(HttpResponse<String> r) {
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + r.body(), e);
    }
  }

  /**
   * Waits for a condition the test cannot be told about directly (a server-side counter), checking
   * every millisecond, up to {@code timeout}.
   */
  static void await(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
    }
  }

  @Override
  public void close() {
    server.close();
    node.close();
    clientExecutor.shutdownNow();
  }
}
