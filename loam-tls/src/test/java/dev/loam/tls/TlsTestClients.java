package dev.loam.tls;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** Client-side TLS for tests: a context trusting a test CA, and what a server presents. */
public final class TlsTestClients {
  private TlsTestClients() {}

  /**
   * A TLS context trusting the CA certificates of {@code caFile} (and nothing else), presenting
   * {@code clientCertificate} when a server asks for one.
   */
  public static SSLContext context(
      java.nio.file.Path caFile, Optional<TestPki.Issued> clientCertificate) {
    try {
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      List<X509Certificate> cas = PemFiles.certificates(caFile, "test CA");
      for (int i = 0; i < cas.size(); i++) {
        ts.setCertificateEntry("ca-" + i, cas.get(i));
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
      tmf.init(ts);
      KeyManager[] kms =
          clientCertificate
              .map(c -> new KeyManager[] {ReloadingTls.open(c.settings()).keyManager()})
              .orElse(null);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kms, tmf.getTrustManagers(), null);
      return ctx;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Connects, completes a handshake and returns the subject of the server's certificate. */
  public static String serverSubject(SSLContext ctx, String host, int port) throws IOException {
    try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(host, port)) {
      s.setSoTimeout(10_000);
      var params = s.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      s.setSSLParameters(params);
      s.startHandshake();
      return ((X509Certificate) s.getSession().getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    }
  }
}
