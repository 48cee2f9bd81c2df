package dev.loam.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.tls.TestPki;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flight listener over TLS: Arrow Java's {@link FlightClient} trusting the test CA reads an
 * arrow stream through {@code grpc+tls}; a plaintext client gets no answer; with a client CA
 * configured, a client without a certificate is refused.
 */
class FlightTlsTest {
  static final String SCHEMA =
      "{\"fields\":[{\"name\":\"id\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]}]}";
  static final String TICKET =
      "{\"namespace\":\"default\",\"stream\":\"t\",\"partition\":0,\"from\":0,\"to\":3}";

  @TempDir Path dir;

  private static long rows(FlightClient c) throws Exception {
    long n = 0;
    try (FlightStream s = c.getStream(new Ticket(TICKET.getBytes(StandardCharsets.UTF_8)))) {
      while (s.next()) {
        for (int r = 0; r < s.getRoot().getRowCount(); r++) {
          assertThat(s.getRoot().getVector("id").getObject(r)).isEqualTo(n++);
        }
      }
    }
    return n;
  }

  @Test
  void arrowsFlightClientReadsOverTlsAndPlaintextIsRefused() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "flight");
    TestPki.Issued cert = ca.issue("localhost");
    try (LoamNode node =
            LoamNode.builder()
                .nodeId("flight-tls")
                .dataDir(dir.resolve("node"))
                .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
                .start();
        LoamFlightServer server =
            LoamFlightServer.builder().node(node).port(0).tls(cert.settings()).start();
        BufferAllocator a = new RootAllocator()) {
      node.log().createArrowStream("default", "t", StreamSpec.standard(1), SCHEMA).join();
      node.log()
          .append(
              "default",
              "t",
              List.of(
                  AppendRecord.of(null, "{\"id\":0}").toPartition(0),
                  AppendRecord.of(null, "{\"id\":1}").toPartition(0),
                  AppendRecord.of(null, "{\"id\":2}").toPartition(0)))
          .join();
      try (InputStream caPem = Files.newInputStream(ca.caCertificate());
          FlightClient tls =
              FlightClient.builder(a, Location.forGrpcTls("localhost", server.port()))
                  .trustedCertificates(caPem)
                  .build()) {
        assertThat(rows(tls)).isEqualTo(3);
      }
      try (FlightClient plain =
          FlightClient.builder(a, Location.forGrpcInsecure("localhost", server.port())).build()) {
        assertThat(catchThrowable(() -> rows(plain))).isInstanceOf(FlightRuntimeException.class);
      }
    }
  }

  @Test
  void withAClientCaAClientWithoutACertificateIsRefused() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "flight");
    TestPki.Issued cert = ca.issue("localhost");
    TestPki.Issued client = ca.issue("reader");
    var settings =
        new dev.loam.tls.TlsSettings(
            cert.certificate(),
            cert.privateKey(),
            java.util.Optional.of(ca.caCertificate()),
            dev.loam.tls.TlsSettings.DEFAULT_RELOAD_INTERVAL);
    try (LoamNode node =
            LoamNode.builder()
                .nodeId("flight-mtls")
                .dataDir(dir.resolve("node"))
                .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
                .start();
        LoamFlightServer server =
            LoamFlightServer.builder().node(node).port(0).tls(settings).start();
        BufferAllocator a = new RootAllocator()) {
      node.log().createArrowStream("default", "t", StreamSpec.standard(1), SCHEMA).join();
      node.log()
          .append(
              "default",
              "t",
              List.of(
                  AppendRecord.of(null, "{\"id\":0}").toPartition(0),
                  AppendRecord.of(null, "{\"id\":1}").toPartition(0),
                  AppendRecord.of(null, "{\"id\":2}").toPartition(0)))
          .join();
      try (InputStream caPem = Files.newInputStream(ca.caCertificate());
          FlightClient noCert =
              FlightClient.builder(a, Location.forGrpcTls("localhost", server.port()))
                  .trustedCertificates(caPem)
                  .build()) {
        assertThat(catchThrowable(() -> rows(noCert))).isInstanceOf(FlightRuntimeException.class);
      }
      try (InputStream caPem = Files.newInputStream(ca.caCertificate());
          InputStream certPem = Files.newInputStream(client.certificate());
          InputStream keyPem = Files.newInputStream(client.privateKey());
          FlightClient withCert =
              FlightClient.builder(a, Location.forGrpcTls("localhost", server.port()))
                  .trustedCertificates(caPem)
                  .clientCertificate(certPem, keyPem)
                  .build()) {
        assertThat(rows(withCert)).isEqualTo(3);
      }
    }
  }
}
