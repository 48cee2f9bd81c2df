package dev.loam.tls;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for tests, made with the {@code openssl} command (the same
 * commands docs/security.md gives): EC P-256 keys as unencrypted PKCS#8, certificates valid for two
 * days. Leaf certificates name {@code localhost} and {@code 127.0.0.1} and serve both as server and
 * client certificates.
 */
public final class TestPki {
  private final Path dir;
  private final String name;
  private final Path caKey;
  private final Path caCert;

  /** A certificate and its key, as PEM files. */
  public record Issued(Path certificate, Path privateKey) {
    /** Settings serving this certificate, without client certificates. */
    public TlsSettings settings() {
      return TlsSettings.of(certificate, privateKey);
    }
  }

  private TestPki(Path dir, String name) {
    this.dir = dir;
    this.name = name;
    this.caKey = dir.resolve(name + "-ca.key");
    this.caCert = dir.resolve(name + "-ca.pem");
  }

  /** Makes a CA named {@code name} with its files in {@code dir}. */
  public static TestPki create(Path dir, String name) {
    TestPki pki = new TestPki(dir, name);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        pki.caKey.toString(),
        "-out",
        pki.caCert.toString(),
        "-days",
        "2",
        "-subj",
        "/CN=" + name + " test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign");
    return pki;
  }

  /** The CA certificate (PEM): what clients trust and what a client CA setting names. */
  public Path caCertificate() {
    return caCert;
  }

  /** Issues a certificate for {@code commonName} (files {@code <name>-<cn>.pem/.key}). */
  public Issued issue(String commonName) {
    return issue(
        commonName,
        dir.resolve(name + "-" + commonName + ".pem"),
        dir.resolve(name + "-" + commonName + ".key"));
  }

  /**
   * Issues a certificate for {@code commonName} into the given files, replacing them by rename so a
   * reader never sees half a file.
   */
  public Issued issue(String commonName, Path certFile, Path keyFile) {
    Path tmpKey = dir.resolve(commonName + ".key.tmp");
    Path csr = dir.resolve(commonName + ".csr.tmp");
    Path tmpCert = dir.resolve(commonName + ".pem.tmp");
    Path ext = dir.resolve(commonName + ".ext.tmp");
    try {
      Files.writeString(
          ext,
          "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
              + "basicConstraints=CA:FALSE\n"
              + "keyUsage=critical,digitalSignature,keyEncipherment\n"
              + "extendedKeyUsage=serverAuth,clientAuth\n",
          StandardCharsets.US_ASCII);
      openssl(
          dir,
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          "ec_paramgen_curve:P-256",
          "-nodes",
          "-keyout",
          tmpKey.toString(),
          "-out",
          csr.toString(),
          "-subj",
          "/CN=" + commonName);
      openssl(
          dir,
          "x509",
          "-req",
          "-in",
          csr.toString(),
          "-CA",
          caCert.toString(),
          "-CAkey",
          caKey.toString(),
          "-CAcreateserial",
          "-out",
          tmpCert.toString(),
          "-days",
          "2",
          "-extfile",
          ext.toString());
      Files.move(
          tmpKey, keyFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.move(
          tmpCert, certFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      Files.deleteIfExists(csr);
      Files.deleteIfExists(ext);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new Issued(certFile, keyFile);
  }

  /** Runs {@code openssl args...} in {@code dir}; fails with its output if it exits non-zero. */
  public static String openssl(Path dir, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add("openssl");
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("openssl timed out: " + cmd);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("openssl failed: " + cmd + "\n" + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException("cannot run openssl: " + cmd, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
