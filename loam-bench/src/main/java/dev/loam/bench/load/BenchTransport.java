package dev.loam.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.AppendRecord;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * How the load generator reaches a node: the embedded {@link Log} API, or the native HTTP API
 * through the JDK HTTP client, so that one workload measures both paths.
 */
interface BenchTransport {

  /** Appends the records; completes when they are acknowledged. */
  CompletableFuture<Void> append(String ns, String stream, List<AppendRecord> records);

  /** Long-polls one partition from {@code offset}. */
  CompletableFuture<Fetched> fetch(
      String ns, String stream, int partition, long offset, int maxBytes, Duration maxWait);

  /** Record values fetched, in offset order, and the offset to fetch next. */
  record Fetched(List<byte[]> values, long nextOffset) {}

  /** The embedded API of a node in this JVM. */
  static BenchTransport embedded(Log log) {
    return new BenchTransport() {
      @Override
      public CompletableFuture<Void> append(String ns, String stream, List<AppendRecord> records) {
        return log.append(ns, stream, records).thenApply(r -> null);
      }

      @Override
      public CompletableFuture<Fetched> fetch(
          String ns, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
        return log.fetch(ns, stream, partition, offset, maxBytes, maxWait)
            .thenApply(
                r -> {
                  List<byte[]> values = new ArrayList<>(r.records().size());
                  for (FetchedRecord fr : r.records()) {
                    values.add(fr.value());
                  }
                  return new Fetched(values, r.nextOffset());
                });
      }
    };
  }

  /**
   * The native HTTP API at {@code baseUrl} (e.g. {@code http://127.0.0.1:8080}): produce as JSON
   * with base64 keys and values, fetch with {@code encoding=base64}. Any status but 200 fails the
   * call with {@link HttpStatusException}.
   */
  static BenchTransport http(String baseUrl, Executor executor) {
    return new Http(baseUrl, executor);
  }

  /** A non-200 answer of the HTTP API. */
  final class HttpStatusException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    HttpStatusException(int status, String body) {
      super("HTTP " + status + ": " + body);
    }
  }

  /** The HTTP transport: one keep-alive client per node, HTTP/1.1. */
  final class Http implements BenchTransport {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder B64D = Base64.getDecoder();
    private final String base;
    private final HttpClient client;

    Http(String baseUrl, Executor executor) {
      this.base = baseUrl;
      this.client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_1_1)
              .connectTimeout(Duration.ofSeconds(10))
              .executor(executor)
              .build();
    }

    @Override
    public CompletableFuture<Void> append(String ns, String stream, List<AppendRecord> records) {
      StringBuilder b = new StringBuilder(records.size() * 1400 + 32);
      b.append("{\"encoding\":\"base64\",\"records\":[");
      for (int i = 0; i < records.size(); i++) {
        AppendRecord r = records.get(i);
        if (i > 0) {
          b.append(',');
        }
        b.append("{\"key\":");
        if (r.key() == null) {
          b.append("null");
        } else {
          b.append('"').append(B64.encodeToString(r.key())).append('"');
        }
        b.append(",\"value\":\"").append(B64.encodeToString(r.value())).append("\"}");
      }
      b.append("]}");
      HttpRequest req =
          HttpRequest.newBuilder(
                  URI.create(base + "/v1/namespaces/" + ns + "/streams/" + stream + "/records"))
              .header("content-type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(b.toString(), StandardCharsets.UTF_8))
              .build();
      return client
          .sendAsync(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
          .thenApply(
              resp -> {
                if (resp.statusCode() != 200) {
                  throw new HttpStatusException(resp.statusCode(), resp.body());
                }
                return null;
              });
    }

    @Override
    public CompletableFuture<Fetched> fetch(
        String ns, String stream, int partition, long offset, int maxBytes, Duration maxWait) {
      HttpRequest req =
          HttpRequest.newBuilder(
                  URI.create(
                      base
                          + "/v1/namespaces/"
                          + ns
                          + "/streams/"
                          + stream
                          + "/partitions/"
                          + partition
                          + "/records?encoding=base64&offset="
                          + offset
                          + "&max_bytes="
                          + maxBytes
                          + "&max_wait_ms="
                          + maxWait.toMillis()))
              .GET()
              .build();
      return client
          .sendAsync(req, HttpResponse.BodyHandlers.ofByteArray())
          .thenApply(
              resp -> {
                if (resp.statusCode() != 200) {
                  throw new HttpStatusException(
                      resp.statusCode(), new String(resp.body(), StandardCharsets.UTF_8));
                }
                JsonNode body;
                try {
                  body = JSON.readTree(resp.body());
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
                JsonNode recs = body.get("records");
                List<byte[]> values = new ArrayList<>(recs.size());
                for (JsonNode r : recs) {
                  values.add(B64D.decode(r.get("value").asText()));
                }
                return new Fetched(values, body.get("next_offset").asLong());
              });
    }
  }
}
