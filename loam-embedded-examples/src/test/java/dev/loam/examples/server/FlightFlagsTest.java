package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.tls.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.flight.Criteria;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.Location;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Flight port flag: {@code loam server} serves Flight on 8815 unless told {@code off}; {@code
 * loam node} serves it only when given; with {@code --tls-cert} the listener speaks TLS only (a
 * one-voter {@code loam node} member, read with Arrow Java's FlightClient over TLS).
 */
class FlightFlagsTest {
  @TempDir Path dir;

  @Test
  void theServerServesTheDefaultPortUnlessOffAndTheNodeOnlyWhenGiven() {
    assertThat(FlightFlags.port(LoamServerMain.CMD.parse(new String[0]), LoamServerMain.FLIGHT))
        .isEqualTo(8815);
    assertThat(
            FlightFlags.port(
                LoamServerMain.CMD.parse(new String[] {"--flight-port", "off"}),
                LoamServerMain.FLIGHT))
        .isEqualTo(-1);
    String[] base = LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE);
    assertThat(FlightFlags.port(NodeOptions.CMD.parse(base), NodeOptions.FLIGHT)).isEqualTo(-1);
    String[] given = java.util.Arrays.copyOf(base, base.length + 2);
    given[base.length] = "--flight-port";
    given[base.length + 1] = "9999";
    assertThat(FlightFlags.port(NodeOptions.CMD.parse(given), NodeOptions.FLIGHT)).isEqualTo(9999);
  }

  @Test
  void aNodeServesFlightOverTlsWhenItHasACertificate() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "node");
    TestPki.Issued cert = ca.issue("localhost");
    int raftPort;
    int httpPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        ServerSocket h = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      raftPort = s.getLocalPort();
      httpPort = h.getLocalPort();
    }
    NodeOptions o =
        NodeOptions.parse(
            new String[] {
              "--id", "n1",
              "--peers", "n1=127.0.0.1:" + raftPort,
              "--data-dir", dir.resolve("n1").toString(),
              "--store", dir.resolve("store").toUri().toString(),
              "--http-port", Integer.toString(httpPort),
              "--tls-cert", cert.certificate().toString(),
              "--tls-key", cert.privateKey().toString()
            });
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    LoamNodeMain.Member m =
        LoamNodeMain.Member.start(
            o, OtlpFlags.Ports.OFF, -1, 0, new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      String text = out.toString(StandardCharsets.UTF_8);
      Matcher p = Pattern.compile(" flight=[0-9.]+:([0-9]+)").matcher(text);
      assertThat(p.find()).as(text).isTrue();
      int port = Integer.parseInt(p.group(1));
      try (BufferAllocator a = new RootAllocator();
          InputStream caPem = Files.newInputStream(ca.caCertificate());
          FlightClient tls =
              FlightClient.builder(a, Location.forGrpcTls("localhost", port))
                  .trustedCertificates(caPem)
                  .build();
          FlightClient plain =
              FlightClient.builder(a, Location.forGrpcInsecure("localhost", port)).build()) {
        List<Object> flights = new ArrayList<>();
        tls.listFlights(Criteria.ALL).forEach(flights::add);
        assertThat(flights).isEmpty();
        assertThat(catchThrowable(() -> plain.listFlights(Criteria.ALL).forEach(f -> {})))
            .isInstanceOf(FlightRuntimeException.class);
      }
    } finally {
      m.stop();
    }
  }
}
