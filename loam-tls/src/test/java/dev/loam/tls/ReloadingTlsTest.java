package dev.loam.tls;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReloadingTls}: replaced files are read on the first handshake after the interval. */
class ReloadingTlsTest {
  @TempDir Path dir;

  @Test
  void aReplacedPairIsUsedAfterTheIntervalAndABrokenOneIgnored() throws Exception {
    TestPki pki = TestPki.create(dir, "r");
    Path cert = dir.resolve("live.pem");
    Path key = dir.resolve("live.key");
    pki.issue("first", cert, key);
    AtomicLong now = new AtomicLong();
    ReloadingTls tls = ReloadingTls.open(TlsSettings.of(cert, key), now::get);
    assertThat(cn(tls)).isEqualTo("CN=first");
    String alias = tls.keyManager().chooseEngineServerAlias("EC", null, (SSLEngine) null);
    assertThat(tls.keyManager().getCertificateChain(alias)[0].getSubjectX500Principal().getName())
        .isEqualTo("CN=first");

    pki.issue("second", cert, key);
    touchLater(cert);
    // Within the interval the files are not looked at.
    now.addAndGet(TlsSettings.DEFAULT_RELOAD_INTERVAL.toNanos() - 1);
    tls.keyManager().chooseEngineServerAlias("EC", null, (SSLEngine) null);
    assertThat(cn(tls)).isEqualTo("CN=first");
    now.addAndGet(1);
    String next = tls.keyManager().chooseEngineServerAlias("EC", null, (SSLEngine) null);
    assertThat(cn(tls)).isEqualTo("CN=second");
    assertThat(tls.reloads()).isEqualTo(1);
    X509Certificate served = tls.keyManager().getCertificateChain(next)[0];
    assertThat(served.getSubjectX500Principal().getName()).isEqualTo("CN=second");
    assertThat(tls.keyManager().getPrivateKey(next)).isNotNull();
    // A handshake that chose the old alias just before the swap still finds its key.
    assertThat(tls.keyManager().getPrivateKey(alias)).isNotNull();

    // Half a file: kept the certificate in use, and the next change is read again.
    Path half = dir.resolve("half.pem");
    String text = Files.readString(cert, StandardCharsets.US_ASCII);
    Files.writeString(half, text.substring(0, text.length() / 2), StandardCharsets.US_ASCII);
    Files.move(half, cert, StandardCopyOption.REPLACE_EXISTING);
    touchLater(cert);
    assertThat(tls.reloadIfChanged()).isFalse();
    assertThat(cn(tls)).isEqualTo("CN=second");
    pki.issue("third", cert, key);
    touchLater(cert);
    assertThat(tls.reloadIfChanged()).isTrue();
    assertThat(cn(tls)).isEqualTo("CN=third");
    assertThat(tls.reloadIfChanged()).isFalse();
  }

  @Test
  void theTrustManagerFollowsAReplacedCa() throws Exception {
    TestPki a = TestPki.create(dir, "a");
    TestPki b = TestPki.create(dir, "b");
    TestPki.Issued server = a.issue("server");
    X509Certificate fromB = PemFiles.certificates(b.issue("client").certificate(), "test").get(0);
    Path ca = dir.resolve("clients-ca.pem");
    Files.copy(a.caCertificate(), ca);
    AtomicLong now = new AtomicLong();
    ReloadingTls tls = ReloadingTls.open(server.settings().withClientCa(ca), now::get);
    var tm = tls.trustManager().orElseThrow();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> tm.checkClientTrusted(new X509Certificate[] {fromB}, "ECDHE_ECDSA"))
        .isInstanceOf(java.security.cert.CertificateException.class);
    Files.copy(b.caCertificate(), ca, StandardCopyOption.REPLACE_EXISTING);
    touchLater(ca);
    now.addAndGet(TlsSettings.DEFAULT_RELOAD_INTERVAL.toNanos());
    tm.checkClientTrusted(new X509Certificate[] {fromB}, "ECDHE_ECDSA");
    assertThat(tls.reloads()).isEqualTo(1);
  }

  private static String cn(ReloadingTls tls) {
    return tls.certificate().getSubjectX500Principal().getName();
  }

  /** A replaced file on a coarse-clock file system could keep its modification time. */
  private static void touchLater(Path file) throws Exception {
    FileTime t = Files.getLastModifiedTime(file);
    Files.setLastModifiedTime(file, FileTime.fromMillis(t.toMillis() + 2000));
  }
}
