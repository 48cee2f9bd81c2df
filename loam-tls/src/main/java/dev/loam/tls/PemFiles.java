package dev.loam.tls;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files (RFC 7468): X.509 certificates ({@code BEGIN CERTIFICATE}) and unencrypted PKCS#8
 * private keys ({@code BEGIN PRIVATE KEY}, what {@code openssl genpkey} and {@code openssl req
 * -newkey ... -nodes} write). Every failure is an INVALID {@link LoamException} naming the file and
 * what was wrong; a message never quotes the file's content.
 */
public final class PemFiles {
  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([^-]*)-----END \\1-----", Pattern.DOTALL);

  /** Guards against pointing a flag at a large unrelated file. */
  private static final long MAX_FILE_BYTES = 1 << 20;

  private PemFiles() {}

  /**
   * The certificates of a PEM file, in file order (a chain: the leaf first).
   *
   * @param what what the file is for, shown in errors ({@code certificate chain}, {@code client
   *     CA})
   * @throws LoamException INVALID if the file is missing, unreadable, holds no certificate or a
   *     certificate that does not parse
   */
  public static List<X509Certificate> certificates(Path file, String what) {
    List<X509Certificate> out = new ArrayList<>();
    CertificateFactory cf;
    try {
      cf = CertificateFactory.getInstance("X.509");
    } catch (CertificateException e) {
      throw new IllegalStateException("the JDK has no X.509 certificate factory", e);
    }
    for (Block b : blocks(file, what)) {
      if (!b.label().equals("CERTIFICATE")) {
        continue;
      }
      try {
        out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.der())));
      } catch (CertificateException e) {
        throw invalid(what, file, "a certificate does not parse: " + e.getMessage(), e);
      }
    }
    if (out.isEmpty()) {
      throw invalid(
          what, file, "no PEM certificate (-----BEGIN CERTIFICATE-----) in the file", null);
    }
    return out;
  }

  /**
   * The one private key of a PEM file: unencrypted PKCS#8, RSA or EC.
   *
   * @throws LoamException INVALID if the file is missing or unreadable, holds no key, an encrypted
   *     key, a legacy PKCS#1 or SEC1 key (with the command that converts it), or a key of another
   *     algorithm
   */
  public static PrivateKey privateKey(Path file, String what) {
    for (Block b : blocks(file, what)) {
      switch (b.label()) {
        case "PRIVATE KEY" -> {
          return decodePkcs8(file, what, b.der());
        }
        case "ENCRYPTED PRIVATE KEY" ->
            throw invalid(what, file, "the key is encrypted; give an unencrypted PKCS#8 key", null);
        case "RSA PRIVATE KEY", "EC PRIVATE KEY" ->
            throw invalid(
                what,
                file,
                "the key is in the legacy "
                    + b.label()
                    + " format; convert it with: openssl pkcs8 -topk8 -nocrypt -in OLD -out NEW",
                null);
        default -> {
          // Other blocks (EC PARAMETERS, certificates kept next to the key) are skipped.
        }
      }
    }
    throw invalid(what, file, "no PEM private key (-----BEGIN PRIVATE KEY-----) in the file", null);
  }

  private static PrivateKey decodePkcs8(Path file, String what, byte[] der) {
    GeneralSecurityException last = null;
    for (String algorithm : List.of("RSA", "EC", "RSASSA-PSS")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw invalid(what, file, "not an RSA or EC PKCS#8 private key", last);
  }

  private record Block(String label, byte[] der) {}

  private static List<Block> blocks(Path file, String what) {
    String text;
    try {
      if (!Files.isRegularFile(file)) {
        throw invalid(what, file, "no such file", null);
      }
      if (Files.size(file) > MAX_FILE_BYTES) {
        throw invalid(what, file, "larger than " + MAX_FILE_BYTES + " bytes, not a PEM file", null);
      }
      text = Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw invalid(what, file, "cannot read it: " + e.getMessage(), e);
    }
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      byte[] der;
      try {
        der = Base64.getMimeDecoder().decode(m.group(2).strip());
      } catch (IllegalArgumentException e) {
        throw invalid(what, file, "a " + m.group(1) + " block is not valid base64", e);
      }
      out.add(new Block(m.group(1), der));
    }
    if (out.isEmpty()) {
      throw invalid(what, file, "not a PEM file (no -----BEGIN ...----- block)", null);
    }
    return out;
  }

  static LoamException invalid(String what, Path file, String problem, Throwable cause) {
    String message = "invalid TLS " + what + " file: " + problem + " file=" + file;
    return cause == null
        ? new LoamException(Kind.INVALID, message)
        : new LoamException(Kind.INVALID, message, cause);
  }
}
