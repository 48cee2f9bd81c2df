package dev.loam.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.tls.TestPki;
import dev.loam.tls.TlsSettings;
import dev.loam.tls.TlsTestClients;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP listener over TLS: curl with {@code --cacert} and the JDK client produce and read;
 * client certificates required when a client CA is set; replaced certificate files reach new
 * connections without a restart.
 */
class HttpsIT {
  private static final String CT = "content-type: application/json";

  @TempDir static Path pkiDir;
  static TestPki ca;
  static TestPki otherCa;
  static TestPki.Issued server;
  static TestPki.Issued client;
  static TestPki.Issued stranger;

  @TempDir Path dir;

  @BeforeAll
  static void pki() {
    ca = TestPki.create(pkiDir, "https");
    otherCa = TestPki.create(pkiDir, "other");
    server = ca.issue("server");
    client = ca.issue("client");
    stranger = otherCa.issue("client");
  }

  /** curl's exit code and output (status line and body with -i), without failing on errors. */
  record CurlRun(int exit, String out) {}

  static CurlRun curl(String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "-i", "--max-time", "20"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new CurlRun(p.exitValue(), out);
  }

  static HttpClient jdkClient(SSLContext ctx) {
    return HttpClient.newBuilder()
        .sslContext(ctx)
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  @Test
  void curlAndTheJdkClientProduceAndFetchOverTls() throws Exception {
    Curl.requireCurl();
    try (HttpTestSupport h = new HttpTestSupport(dir, b -> b.tls(server.settings()))) {
      String base = "https://127.0.0.1:" + h.server.port();
      String cacert = ca.caCertificate().toString();
      CurlRun ns =
          curl(
              "--cacert",
              cacert,
              "-X",
              "POST",
              base + "/v1/namespaces",
              "-H",
              CT,
              "-d",
              "{\"name\":\"demo\"}");
      assertThat(ns.exit()).as(ns.out()).isZero();
      assertThat(ns.out()).startsWith("HTTP/1.1 201");
      CurlRun stream =
          curl(
              "--cacert",
              cacert,
              "-X",
              "POST",
              base + "/v1/namespaces/demo/streams",
              "-H",
              CT,
              "-d",
              "{\"name\":\"events\",\"partitions\":1}");
      assertThat(stream.out()).as(stream.out()).startsWith("HTTP/1.1 201");
      CurlRun produced =
          curl(
              "--cacert",
              cacert,
              "-X",
              "POST",
              base + "/v1/namespaces/demo/streams/events/records",
              "-H",
              CT,
              "-d",
              "{\"records\":[{\"value\":\"over-tls\",\"partition\":0}]}");
      assertThat(produced.out()).as(produced.out()).startsWith("HTTP/1.1 200");

      HttpClient jdk = jdkClient(TlsTestClients.context(ca.caCertificate(), Optional.empty()));
      HttpResponse<String> more =
          jdk.send(
              HttpRequest.newBuilder(
                      URI.create(base + "/v1/namespaces/demo/streams/events/records"))
                  .header("content-type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"records\":[{\"value\":\"from-jdk\",\"partition\":0}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(more.statusCode()).as(more.body()).isEqualTo(200);
      HttpResponse<String> fetched =
          jdk.send(
              HttpRequest.newBuilder(
                      URI.create(
                          base
                              + "/v1/namespaces/demo/streams/events/partitions/0/records?offset=0"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(fetched.statusCode()).isEqualTo(200);
      assertThat(HttpTestSupport.JSON.readTree(fetched.body()).path("records"))
          .extracting(r -> r.path("value").asText())
          .containsExactly("over-tls", "from-jdk");

      // Without the CA the certificate is not trusted; plain HTTP gets no answer.
      assertThat(curl(base + "/v1/namespaces").exit()).isNotZero();
      CurlRun plain = curl("http://127.0.0.1:" + h.server.port() + "/v1/namespaces");
      assertThat(plain.out()).doesNotContain("HTTP/1.1 200");
    }
  }

  @Test
  void aClientCertificateIsRequiredWhenAClientCaIsSet() throws Exception {
    Curl.requireCurl();
    TlsSettings tls = server.settings().withClientCa(ca.caCertificate());
    try (HttpTestSupport h = new HttpTestSupport(dir, b -> b.tls(tls))) {
      String url = "https://127.0.0.1:" + h.server.port() + "/v1/namespaces";
      String cacert = ca.caCertificate().toString();
      CurlRun withCert =
          curl(
              "--cacert",
              cacert,
              "--cert",
              client.certificate().toString(),
              "--key",
              client.privateKey().toString(),
              url);
      assertThat(withCert.exit()).as(withCert.out()).isZero();
      assertThat(withCert.out()).startsWith("HTTP/1.1 200");

      CurlRun without = curl("--cacert", cacert, url);
      assertThat(without.exit()).as(without.out()).isNotZero();
      assertThat(without.out()).doesNotContain("HTTP/1.1");
      CurlRun foreign =
          curl(
              "--cacert",
              cacert,
              "--cert",
              stranger.certificate().toString(),
              "--key",
              stranger.privateKey().toString(),
              url);
      assertThat(foreign.exit()).as(foreign.out()).isNotZero();

      HttpRequest get = HttpRequest.newBuilder(URI.create(url)).build();
      HttpResponse<String> ok =
          jdkClient(TlsTestClients.context(ca.caCertificate(), Optional.of(client)))
              .send(get, HttpResponse.BodyHandlers.ofString());
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThatThrownBy(
              () ->
                  jdkClient(TlsTestClients.context(ca.caCertificate(), Optional.empty()))
                      .send(get, HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void replacedCertificateFilesReachNewConnectionsWithoutARestart() throws Exception {
    Path cert = dir.resolve("live.pem");
    Path key = dir.resolve("live.key");
    ca.issue("first", cert, key);
    TlsSettings tls = TlsSettings.of(cert, key).withReloadInterval(Duration.ofMillis(200));
    try (HttpTestSupport h = new HttpTestSupport(dir.resolve("node"), b -> b.tls(tls))) {
      SSLContext ctx = TlsTestClients.context(ca.caCertificate(), Optional.empty());
      int port = h.server.port();
      assertThat(TlsTestClients.serverSubject(ctx, "127.0.0.1", port)).isEqualTo("CN=first");
      ca.issue("second", cert, key);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      String seen;
      do {
        seen = TlsTestClients.serverSubject(ctx, "127.0.0.1", port);
      } while (!seen.equals("CN=second") && System.nanoTime() < deadline);
      assertThat(seen).isEqualTo("CN=second");
      assertThat(h.server.tls().orElseThrow().reloads()).isEqualTo(1);
      HttpResponse<String> r =
          jdkClient(ctx)
              .send(
                  HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/v1/namespaces"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
    }
  }
}
