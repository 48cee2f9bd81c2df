package dev.loam.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.cli.UsageException;
import dev.loam.tls.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The TLS flags of {@code loam server} and {@code loam node}: the files are read as PEM while the
 * command line is parsed, and a missing or mismatched companion flag is a usage error naming it.
 */
class TlsFlagsTest {
  @TempDir static Path dir;
  static TestPki ca;
  static TestPki.Issued server;
  static TestPki.Issued other;
  static String caFile;

  @BeforeAll
  static void pki() {
    ca = TestPki.create(dir, "cli");
    server = ca.issue("server");
    other = ca.issue("other");
    caFile = ca.caCertificate().toString();
  }

  static String cert() {
    return server.certificate().toString();
  }

  static String key() {
    return server.privateKey().toString();
  }

  @Test
  void serverTakesCertificateKeyAndClientCa() {
    LoamServerMain.Options plain = LoamServerMain.parse(new String[0]);
    assertThat(plain.tls()).isEmpty();
    LoamServerMain.Options o =
        LoamServerMain.parse(
            new String[] {"--tls-cert", cert(), "--tls-key", key(), "--tls-client-ca", caFile});
    assertThat(o.tls()).isPresent();
    assertThat(o.tls().get().requiresClientCertificate()).isTrue();
    assertThat(o.tls().get().certificateChain()).isEqualTo(server.certificate());
  }

  @Test
  void badFilesAreRefusedAtParseTimeNamingTheFlag() throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.pem"), "junk", StandardCharsets.US_ASCII);
    assertThatThrownBy(
            () ->
                LoamServerMain.parse(
                    new String[] {"--tls-cert", junk.toString(), "--tls-key", key()}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--tls-cert")
        .hasMessageContaining("not a PEM file");
    assertThatThrownBy(
            () -> LoamServerMain.parse(new String[] {"--tls-cert", cert(), "--tls-key", cert()}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("no PEM private key");
    assertThatThrownBy(
            () ->
                LoamServerMain.parse(
                    new String[] {
                      "--tls-cert", cert(), "--tls-key", other.privateKey().toString()
                    }))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("not the private key of the first certificate");
    assertThatThrownBy(() -> LoamServerMain.parse(new String[] {"--tls-cert", cert()}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--tls-key")
        .hasMessageContaining("is needed with --tls-cert");
    assertThatThrownBy(() -> LoamServerMain.parse(new String[] {"--tls-client-ca", caFile}))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--tls-cert");
  }

  @Test
  void nodeTakesListenerAndPeerCertificates() {
    NodeOptions o =
        NodeOptions.parse(
            LoamNodeMainTest.args(
                "n1",
                LoamNodeMainTest.THREE,
                "--tls-cert",
                cert(),
                "--tls-key",
                key(),
                "--peer-tls-cert",
                cert(),
                "--peer-tls-key",
                key(),
                "--peer-tls-ca",
                caFile));
    assertThat(o.tls()).isPresent();
    assertThat(o.advertisedAddress()).isEqualTo("https://127.0.0.1:8081");
    assertThat(o.ratisSettings().peerTls()).isPresent();
    assertThat(o.ratisSettings().peerTls().get().clientCa()).contains(ca.caCertificate());
    NodeOptions plain = NodeOptions.parse(LoamNodeMainTest.args("n1", LoamNodeMainTest.THREE));
    assertThat(plain.ratisSettings().peerTls()).isEmpty();
    assertThat(plain.advertisedAddress()).startsWith("http://");
  }

  @Test
  void theJournalPortTakesThePeerCertificates() {
    NodeOptions o =
        NodeOptions.parse(
            LoamNodeMainTest.args(
                "n1",
                LoamNodeMainTest.THREE,
                "--journal-port",
                "9301",
                "--peer-tls-cert",
                cert(),
                "--peer-tls-key",
                key(),
                "--peer-tls-ca",
                caFile));
    assertThat(o.journalAddress()).isEqualTo("127.0.0.1:9301");
    // The same files as the metastore's Raft port, so one CA admits a node to both.
    assertThat(o.peerTls()).isPresent();
    assertThat(o.peerTls().get().requiresClientCertificate()).isTrue();
    assertThat(o.peerTls()).isEqualTo(o.ratisSettings().peerTls());
  }

  @Test
  void peerTlsIsMutualSoItNeedsTheCa() {
    assertThatThrownBy(
            () ->
                NodeOptions.parse(
                    LoamNodeMainTest.args(
                        "n1",
                        LoamNodeMainTest.THREE,
                        "--peer-tls-cert",
                        cert(),
                        "--peer-tls-key",
                        key())))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--peer-tls-ca")
        .hasMessageContaining("peers authenticate each other");
  }

  @Test
  void theHelpListsEveryTlsFlag() {
    assertThat(LoamServerMain.CMD.help()).contains("--tls-cert", "--tls-key", "--tls-client-ca");
    assertThat(NodeOptions.CMD.help())
        .contains("--tls-cert", "--peer-tls-cert", "--peer-tls-key", "--peer-tls-ca");
  }
}
