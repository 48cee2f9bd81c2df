package dev.loam.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@link TlsSettings} accepts and the errors naming what is wrong with a file. */
class TlsSettingsTest {
  @TempDir static Path dir;
  static TestPki pki;
  static TestPki.Issued server;
  static TestPki.Issued other;

  @BeforeAll
  static void pki() {
    pki = TestPki.create(dir, "a");
    server = pki.issue("server");
    other = pki.issue("other");
  }

  @Test
  void readsAMatchingPairAndAClientCa() {
    TlsSettings s = server.settings().withClientCa(pki.caCertificate());
    assertThat(s.requiresClientCertificate()).isTrue();
    assertThat(s.reloadInterval()).isEqualTo(TlsSettings.DEFAULT_RELOAD_INTERVAL);
    assertThat(s.toString()).doesNotContain("PRIVATE");
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("missing.pem");
    assertThatThrownBy(() -> TlsSettings.of(missing, server.privateKey()))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("invalid TLS certificate chain file: no such file")
        .hasMessageContaining("file=" + missing)
        .extracting(e -> ((LoamException) e).kind())
        .isEqualTo(LoamException.Kind.INVALID);
  }

  @Test
  void aFileThatIsNotPemIsRefused() throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.pem"), "hello", StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> TlsSettings.of(junk, server.privateKey()))
        .hasMessageContaining("not a PEM file")
        .hasMessageContaining("file=" + junk);
    assertThatThrownBy(() -> TlsSettings.of(server.certificate(), server.certificate()))
        .hasMessageContaining("invalid TLS private key file: no PEM private key");
  }

  @Test
  void aKeyOfAnotherCertificateIsRefused() {
    assertThatThrownBy(() -> TlsSettings.of(server.certificate(), other.privateKey()))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("the key is not the private key of the first certificate")
        .hasMessageContaining("file=" + other.privateKey());
  }

  @Test
  void encryptedAndLegacyKeysAreRefusedWithTheFix() {
    Path encrypted = dir.resolve("encrypted.key");
    TestPki.openssl(
        dir,
        "pkcs8",
        "-topk8",
        "-in",
        server.privateKey().toString(),
        "-out",
        encrypted.toString(),
        "-passout",
        "pass:x");
    assertThatThrownBy(() -> TlsSettings.of(server.certificate(), encrypted))
        .hasMessageContaining("the key is encrypted");
    Path legacy = dir.resolve("legacy.key");
    TestPki.openssl(dir, "ec", "-in", server.privateKey().toString(), "-out", legacy.toString());
    assertThatThrownBy(() -> TlsSettings.of(server.certificate(), legacy))
        .hasMessageContaining("legacy EC PRIVATE KEY format")
        .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt");
  }

  @Test
  void aClientCaThatIsNotACertificateIsRefused() {
    assertThatThrownBy(() -> server.settings().withClientCa(server.privateKey()))
        .hasMessageContaining("invalid TLS CA file: no PEM certificate");
  }

  @Test
  void theReloadIntervalIsBounded() {
    assertThatThrownBy(() -> server.settings().withReloadInterval(Duration.ofMillis(10)))
        .hasMessageContaining("reloadInterval=PT0.01S");
  }
}
