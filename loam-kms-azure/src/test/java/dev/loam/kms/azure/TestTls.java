package dev.loam.kms.azure;

import java.io.InputStream;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The local vault's TLS identity: a self-signed EC certificate for 127.0.0.1 valid until 2126, made
 * with the JDK's keytool and kept in the test resources ({@code local-vault.p12}, password {@code
 * loam-test}; a test key, guarding nothing). The vault serves TLS with it and the client is told to
 * trust exactly it.
 */
final class TestTls {
  private static final char[] PASSWORD = "loam-test".toCharArray();
  private static TestTls shared;

  private final KeyStore store;

  private TestTls(KeyStore store) {
    this.store = store;
  }

  static synchronized TestTls shared() throws Exception {
    if (shared == null) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      try (InputStream in = TestTls.class.getResourceAsStream("local-vault.p12")) {
        ks.load(in, PASSWORD);
      }
      shared = new TestTls(ks);
    }
    return shared;
  }

  SSLContext serverContext() throws Exception {
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(store, PASSWORD);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), null, null);
    return ctx;
  }

  X509Certificate certificate() throws Exception {
    return (X509Certificate) store.getCertificate("vault");
  }
}
