package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.tls.ReloadingTls;
import dev.loam.tls.TestPki;
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
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code loam node --journal-port} with {@code --peer-tls-*}: three processes whose metastore and
 * journal ports both speak mutual TLS with the same files create a quorum stream over HTTP, append
 * to it through every node and read it back from every node; a TLS client of the cluster's CA
 * completes a handshake on a journal port, one without a certificate does not.
 */
class QuorumPeerTlsProcessIT {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  ProcessCluster cluster;
  final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aQuorumStreamWorksOverMutualTlsJournalPorts() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "cluster");
    // One certificate for every node: it names 127.0.0.1, where every port of this cluster is.
    TestPki.Issued peer = ca.issue("peer");
    cluster =
        ProcessCluster.builder()
            .nodes(3)
            .journal()
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName()))
            .nodeArgs(
                "--flush-ms",
                "10",
                "--peer-tls-cert",
                peer.certificate().toString(),
                "--peer-tls-key",
                peer.privateKey().toString(),
                "--peer-tls-ca",
                ca.caCertificate().toString())
            .start();
    String n1 = cluster.httpUrl(0);
    assertThat(post(n1 + "/v1/namespaces", "{\"name\":\"ns\"}").statusCode()).isEqualTo(201);
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      HttpResponse<String> c =
          post(
              n1 + "/v1/namespaces/ns/streams",
              "{\"name\":\"q\",\"partitions\":1,\"class\":\"quorum\"}");
      if (c.statusCode() == 201) {
        break;
      }
      // Refused until the three journal endpoints are advertised.
      assertThat(c.statusCode()).as(c.body()).isIn(400, 503);
      assertThat(System.nanoTime()).as("created within 60 s: %s", c.body()).isLessThan(end);
      Thread.sleep(100);
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String v = "r" + i;
      appendRetrying(cluster.httpUrl(i % 3), v);
      expected.add(v);
    }
    for (int i = 0; i < 3; i++) {
      assertThat(readAll(cluster.httpUrl(i), expected.size())).as("node %d", i).isEqualTo(expected);
    }

    ReloadingTls client =
        ReloadingTls.open(ca.issue("client").settings().withClientCa(ca.caCertificate()));
    int journalPort = cluster.journalPort(0);
    try (SSLSocket s = socket(client, true, journalPort)) {
      s.startHandshake();
      assertThat(s.getSession().getPeerCertificates()).isNotEmpty();
    }
    assertThatThrownBy(
            () -> {
              try (SSLSocket s = socket(client, false, journalPort)) {
                s.startHandshake();
                s.getOutputStream()
                    .write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                s.getInputStream().read();
              }
            })
        .as("a journal client without a certificate")
        .isInstanceOf(SSLException.class);
  }

  private static SSLSocket socket(ReloadingTls tls, boolean present, int port) throws Exception {
    SSLContext c = SSLContext.getInstance("TLS");
    c.init(
        present ? new KeyManager[] {tls.keyManager()} : null,
        new TrustManager[] {tls.trustManager().orElseThrow()},
        null);
    SSLSocket s = (SSLSocket) c.getSocketFactory().createSocket("127.0.0.1", port);
    s.setSoTimeout(10_000);
    javax.net.ssl.SSLParameters p = s.getSSLParameters();
    p.setApplicationProtocols(new String[] {"h2"});
    s.setSSLParameters(p);
    return s;
  }

  /** Appends {@code v}; a refusal (not appended: no journal leader yet) is sent again. */
  private void appendRetrying(String base, String v) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      HttpResponse<String> r =
          post(
              base + "/v1/namespaces/ns/streams/q/records",
              "{\"records\":[{\"value\":\"" + v + "\",\"partition\":0}]}");
      if (r.statusCode() == 200) {
        return;
      }
      assertThat(r.statusCode()).as("%s: %s", v, r.body()).isEqualTo(503);
      assertThat(System.nanoTime()).as("%s appended within 60 s", v).isLessThan(end);
      Thread.sleep(100);
    }
  }

  private List<String> readAll(String base, int count) throws Exception {
    String url = base + "/v1/namespaces/ns/streams/q/partitions/0/records?offset=0";
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      HttpResponse<String> r = get(url);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode f = JSON.readTree(r.body());
      if (f.path("high_watermark").asLong() >= count) {
        List<String> out = new ArrayList<>();
        f.path("records").forEach(rec -> out.add(rec.path("value").asText()));
        return out;
      }
      assertThat(System.nanoTime()).as("%d records on %s within 30 s", count, base).isLessThan(end);
      Thread.sleep(50);
    }
  }

  private HttpResponse<String> post(String url, String json)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(30))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
