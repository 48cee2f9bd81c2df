package example.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loam.api.LoamNode;
import dev.loam.http.LoamHttpServer;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A host starts a node and its HTTP API and serves requests, with every Loam module on its class path. */
class HostServesHttpTest {
  private static final Set<String> LOAM_HTTP_NETTY =
      Set.of(
          "netty-common",
          "netty-buffer",
          "netty-resolver",
          "netty-transport",
          "netty-codec",
          "netty-codec-http",
          "netty-handler");

  @TempDir Path dir;

  @Test
  void theHttpServerAnswersAdminProduceAndFetch() throws Exception {
    try (LoamNode node = LoamNode.builder().nodeId("host-1").dataDir(dir).start();
        LoamHttpServer http = LoamHttpServer.builder().node(node).port(0).start()) {
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      String base = "http://127.0.0.1:" + http.port();

      HttpResponse<String> health = send(client, get(base + "/v1/health"));
      assertEquals(200, health.statusCode(), health.body());
      HttpResponse<String> ns = send(client, post(base + "/v1/namespaces", "{\"name\":\"shop\"}"));
      assertEquals(201, ns.statusCode(), ns.body());
      HttpResponse<String> stream =
          send(
              client,
              post(base + "/v1/namespaces/shop/streams", "{\"name\":\"orders\",\"partitions\":1}"));
      assertEquals(201, stream.statusCode(), stream.body());
      HttpResponse<String> produce =
          send(
              client,
              post(
                  base + "/v1/namespaces/shop/streams/orders/records",
                  "{\"records\":[{\"key\":\"k1\",\"value\":\"hello-host\",\"partition\":0}]}"));
      assertEquals(200, produce.statusCode(), produce.body());
      assertTrue(produce.body().contains("\"offset\":0"), produce.body());
      HttpResponse<String> fetch =
          send(
              client,
              get(base + "/v1/namespaces/shop/streams/orders/partitions/0/records?offset=0"));
      assertEquals(200, fetch.statusCode(), fetch.body());
      assertTrue(fetch.body().contains("hello-host"), fetch.body());
    }
  }

  @Test
  void oneJacksonAndOneNettyAreOnTheClassPath() {
    // Read from the jars Maven resolved, not from Netty's Version.identify(): shaded copies (the
    // one inside grpc-netty-shaded) publish version files under the same artifact names.
    // jackson-annotations has its own version scheme (2.22 with jackson-core 2.22.3); tcnative
    // is versioned apart from Netty.
    List<String> jackson =
        jars("com/fasterxml/jackson/core/").stream()
            .filter(j -> j.startsWith("jackson-core/") || j.startsWith("jackson-databind/"))
            .toList();
    assertEquals(2, jackson.size(), "Jackson: " + jackson);
    assertEquals(1, versionsOf(jackson).size(), "Jackson: " + jackson);
    // With loam-bom every Netty artifact has one version; without it, those loam-http loads do
    // (it declares them directly), while ones only a cloud SDK uses follow that SDK.
    List<String> netty =
        jars("io/netty/").stream()
            .filter(j -> !j.startsWith("netty-tcnative"))
            .filter(j -> Boolean.getBoolean("host.bom") || LOAM_HTTP_NETTY.contains(j.split("/")[0]))
            .toList();
    assertTrue(netty.size() >= LOAM_HTTP_NETTY.size(), "Netty: " + netty);
    assertEquals(1, versionsOf(netty).size(), "Netty: " + netty);
  }

  /** The class-path jars under a repository folder, as artifact/version paths. */
  private static List<String> jars(String groupPath) {
    return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(p -> p.replace(File.separatorChar, '/'))
        .filter(p -> p.contains("/" + groupPath) && p.endsWith(".jar"))
        .map(p -> p.substring(p.indexOf("/" + groupPath) + groupPath.length() + 1))
        .sorted()
        .toList();
  }

  /** The distinct versions of artifact/version/file paths. */
  private static Set<String> versionsOf(List<String> jars) {
    return jars.stream()
        .map(p -> p.split("/"))
        .filter(parts -> parts.length >= 3)
        .map(parts -> parts[1])
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build();
  }

  private static HttpRequest post(String url, String json) {
    return HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json))
        .build();
  }

  private static HttpResponse<String> send(HttpClient c, HttpRequest r) throws Exception {
    return c.send(r, HttpResponse.BodyHandlers.ofString());
  }
}
