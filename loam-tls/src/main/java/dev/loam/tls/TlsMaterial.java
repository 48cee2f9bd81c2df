package dev.loam.tls;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * One reading of the PEM files: the JDK key manager holding the key and chain under {@link #alias}
 * (unique per reading, so a handshake that chose an alias of an older reading still finds its key),
 * the trust manager of the client CA if any, and the stamps the files had when read.
 */
record TlsMaterial(
    long generation,
    String alias,
    X509Certificate leaf,
    X509ExtendedKeyManager keyManager,
    Optional<X509ExtendedTrustManager> trustManager,
    List<FileStamp> stamps) {

  /** Only guards the in-memory key store; never written anywhere. */
  private static final char[] IN_MEMORY_PASSWORD = "in-memory".toCharArray();

  /** A file's size and modification time; a replaced file changes at least one of them. */
  record FileStamp(Path file, FileTime modified, long size) {
    static FileStamp of(Path file) {
      try {
        return new FileStamp(file, Files.getLastModifiedTime(file), Files.size(file));
      } catch (IOException e) {
        return new FileStamp(file, FileTime.fromMillis(0), -1);
      }
    }
  }

  static List<FileStamp> stampsOf(Path cert, Path key, Optional<Path> ca) {
    List<FileStamp> out = new ArrayList<>();
    out.add(FileStamp.of(cert));
    out.add(FileStamp.of(key));
    ca.ifPresent(p -> out.add(FileStamp.of(p)));
    return out;
  }

  /** Reads and checks the files; INVALID naming the file at fault. */
  static TlsMaterial load(Path certFile, Path keyFile, Optional<Path> caFile, long generation) {
    // Stamped before reading: a change while reading shows up as a change at the next check.
    List<FileStamp> stamps = stampsOf(certFile, keyFile, caFile);
    List<X509Certificate> chain = PemFiles.certificates(certFile, "certificate chain");
    PrivateKey key = PemFiles.privateKey(keyFile, "private key");
    X509Certificate leaf = chain.get(0);
    try {
      leaf.checkValidity();
    } catch (CertificateExpiredException | CertificateNotYetValidException e) {
      throw PemFiles.invalid(
          "certificate chain",
          certFile,
          "the certificate is outside its validity period notBefore="
              + leaf.getNotBefore().toInstant()
              + " notAfter="
              + leaf.getNotAfter().toInstant(),
          e);
    }
    checkKeyMatches(leaf, key, certFile, keyFile);
    String alias = "loam-" + generation;
    X509ExtendedKeyManager km;
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(alias, key, IN_MEMORY_PASSWORD, chain.toArray(new X509Certificate[0]));
      // SunX509 keeps the keystore's aliases as they are (NewSunX509 prefixes them).
      KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
      kmf.init(ks, IN_MEMORY_PASSWORD);
      km = only(kmf.getKeyManagers(), X509ExtendedKeyManager.class);
    } catch (GeneralSecurityException | IOException e) {
      throw PemFiles.invalid(
          "private key", keyFile, "the JDK refuses the key: " + e.getMessage(), e);
    }
    Optional<X509ExtendedTrustManager> tm = Optional.empty();
    if (caFile.isPresent()) {
      List<X509Certificate> cas = PemFiles.certificates(caFile.get(), "CA");
      try {
        KeyStore ts = KeyStore.getInstance("PKCS12");
        ts.load(null, null);
        for (int i = 0; i < cas.size(); i++) {
          ts.setCertificateEntry("ca-" + i, cas.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(ts);
        tm = Optional.of(only(tmf.getTrustManagers(), X509ExtendedTrustManager.class));
      } catch (GeneralSecurityException | IOException e) {
        throw PemFiles.invalid("CA", caFile.get(), "the JDK refuses it: " + e.getMessage(), e);
      }
    }
    return new TlsMaterial(generation, alias, leaf, km, tm, List.copyOf(stamps));
  }

  /** Signs with the key and verifies with the certificate: the pair belongs together. */
  private static void checkKeyMatches(
      X509Certificate leaf, PrivateKey key, Path certFile, Path keyFile) {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> null;
        };
    if (algorithm == null) {
      return;
    }
    if (!leaf.getPublicKey().getAlgorithm().equals(key.getAlgorithm())) {
      throw mismatch(certFile, keyFile);
    }
    try {
      byte[] probe = new byte[32];
      new SecureRandom().nextBytes(probe);
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(probe);
      byte[] signature = s.sign();
      Signature v = Signature.getInstance(algorithm);
      v.initVerify(leaf.getPublicKey());
      v.update(probe);
      if (!v.verify(signature)) {
        throw mismatch(certFile, keyFile);
      }
    } catch (GeneralSecurityException e) {
      throw mismatch(certFile, keyFile);
    }
  }

  private static RuntimeException mismatch(Path certFile, Path keyFile) {
    return PemFiles.invalid(
        "private key",
        keyFile,
        "the key is not the private key of the first certificate certificate=" + certFile,
        null);
  }

  private static <T> T only(Object[] managers, Class<T> type) {
    for (Object m : managers) {
      if (type.isInstance(m)) {
        return type.cast(m);
      }
    }
    throw new IllegalStateException("the JDK gave no " + type.getSimpleName());
  }
}
