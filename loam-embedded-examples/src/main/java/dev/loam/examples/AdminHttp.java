package dev.loam.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.Values;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * What the {@code ./loam} admin commands ({@code keys}, {@code partitions}) share: the {@code
 * --url} and {@code --key} flags, the key from {@code LOAM_API_KEY}, one HTTP call to a node and
 * the printing of a refusal (the problem document's detail, never a secret).
 */
final class AdminHttp {
  private AdminHttp() {}

  /** The environment variable a key is read from when {@code --key} is not given. */
  static final String KEY_ENV = "LOAM_API_KEY";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Declares {@code --url} on {@code c}. */
  static Flag<String> url(Command c) {
    return c.flag("--url", "URL", Values.nonBlank(), "http://127.0.0.1:8080", "a node's HTTP API");
  }

  /** Declares {@code --key} on {@code c}. */
  static Flag<String> key(Command c) {
    return c.optional(
        "--key",
        "TOKEN",
        Values.nonBlank(),
        "$" + KEY_ENV,
        "a cluster-admin key's token <id>.<secret>");
  }

  static String token(String flag, Map<String, String> env) {
    if (flag != null) {
      return flag;
    }
    String e = env.get(KEY_ENV);
    return e == null || e.isBlank() ? null : e.strip();
  }

  static int refused(Command c, HttpResponse<String> r, PrintStream err) {
    String detail = r.body();
    try {
      JsonNode p = JSON.readTree(r.body());
      if (p != null && p.has("detail")) {
        detail = p.get("detail").asText();
      }
    } catch (IOException e) {
      // Not a problem document: the body as it is.
    }
    err.println(c.name() + ": refused (HTTP " + r.statusCode() + "): " + detail);
    if (r.statusCode() == 401) {
      err.println("(give a cluster-admin key with --key or $" + KEY_ENV + "; docs/security.md)");
    }
    return 1;
  }

  static HttpResponse<String> send(
      String url, String method, String path, String token, String body)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(stripSlash(url) + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("content-type", "application/json");
    }
    if (token != null) {
      b.header("authorization", "Bearer " + token);
    }
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
