package dev.loam.examples.server;

import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.UsageException;
import dev.loam.cli.ValueParser;
import dev.loam.cli.Values;
import dev.loam.error.LoamException;
import dev.loam.tls.PemFiles;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The TLS flags {@code loam server} and {@code loam node} share: value parsers that read each file
 * as PEM while the command line is parsed, and the check that turns a certificate, key and CA flag
 * into {@link TlsSettings} (a key without a certificate, or a key of another certificate, is a
 * usage error naming the flag).
 */
final class TlsFlags {
  private TlsFlags() {}

  /**
   * The listener TLS flags of a command: {@code --tls-cert}, {@code --tls-key}, {@code
   * --tls-client-ca}.
   */
  record Listener(Flag<Path> cert, Flag<Path> key, Flag<Path> clientCa) {
    /** The TLS settings of the HTTP and Kafka listeners; empty: plaintext. */
    Optional<TlsSettings> settings(ParsedArgs a) {
      return TlsFlags.settings(a, cert, key, clientCa, false);
    }
  }

  /** Declares the listener TLS flags on {@code cmd}, at this point of its help. */
  static Listener listener(Command cmd) {
    return new Listener(
        cmd.optional(
            "--tls-cert",
            "FILE",
            certificates("certificate chain"),
            "none (plain)",
            "PEM certificate chain: HTTPS and Kafka SSL on both ports (re-read when replaced)"),
        cmd.optional(
            "--tls-key",
            "FILE",
            privateKey(),
            "none",
            "PEM private key (unencrypted PKCS#8) of --tls-cert"),
        cmd.optional(
            "--tls-client-ca",
            "FILE",
            certificates("client CA"),
            "none",
            "PEM CA certificates: clients must present a certificate issued by one"));
  }

  /** A PEM file of certificates; the file is read now. */
  static ValueParser<Path> certificates(String what) {
    ValueParser<Path> path = Values.path();
    return t -> {
      Path p = path.parse(t);
      pem(() -> PemFiles.certificates(p, what));
      return p;
    };
  }

  /** A PEM file holding an unencrypted PKCS#8 key; the file is read now. */
  static ValueParser<Path> privateKey() {
    ValueParser<Path> path = Values.path();
    return t -> {
      Path p = path.parse(t);
      pem(() -> PemFiles.privateKey(p, "private key"));
      return p;
    };
  }

  private static void pem(Runnable read) {
    try {
      read.run();
    } catch (LoamException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /**
   * The TLS settings the three flags describe; empty when none is given.
   *
   * @param caRequired whether the CA flag must come with the certificate (mutual TLS)
   * @throws UsageException naming the flag that is missing or whose file does not fit the others
   */
  static Optional<TlsSettings> settings(
      ParsedArgs a, Flag<Path> cert, Flag<Path> key, Flag<Path> ca, boolean caRequired) {
    if (!a.given(cert) && !a.given(key) && !a.given(ca)) {
      return Optional.empty();
    }
    if (!a.given(cert)) {
      throw new UsageException(cert.name(), "is needed with " + (a.given(key) ? key : ca).name());
    }
    if (!a.given(key)) {
      throw new UsageException(key.name(), "is needed with " + cert.name());
    }
    if (caRequired && !a.given(ca)) {
      throw new UsageException(
          ca.name(), "is needed with " + cert.name() + ": peers authenticate each other");
    }
    try {
      TlsSettings s = TlsSettings.of(a.get(cert), a.get(key));
      return Optional.of(a.given(ca) ? s.withClientCa(a.get(ca)) : s);
    } catch (LoamException e) {
      throw new UsageException(key.name(), e.getMessage(), e);
    }
  }
}
