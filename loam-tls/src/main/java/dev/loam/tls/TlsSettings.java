package dev.loam.tls;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * TLS for one listener (or the metastore's Raft port), as PEM files: this side's certificate chain
 * and private key, and optionally the CA certificates a peer's certificate must chain to. Plain
 * values; the files are read and checked when the record is made (so a command line with a bad file
 * fails at parse time), and read again by {@link ReloadingTls} whenever they change.
 *
 * <p>Holds paths only: no key material, so {@code toString} shows nothing secret.
 *
 * @param certificateChain PEM certificates, this side's first, then any intermediates
 * @param privateKey the PEM private key of the first certificate: unencrypted PKCS#8, RSA or EC
 * @param clientCa when present, PEM CA certificates; a peer must then present a certificate that
 *     chains to one of them (client-certificate authentication, mutual TLS), else the handshake
 *     fails
 * @param reloadInterval how often, at most, a handshake checks the files for a change (their size
 *     and modification time); a change is read and used by the connections that follow. 100 ms to 1
 *     h, default {@link #DEFAULT_RELOAD_INTERVAL}
 */
public record TlsSettings(
    Path certificateChain, Path privateKey, Optional<Path> clientCa, Duration reloadInterval) {

  /** How often handshakes look for replaced files unless told otherwise. */
  public static final Duration DEFAULT_RELOAD_INTERVAL = Duration.ofSeconds(5);

  /**
   * @throws LoamException INVALID naming the file and the problem: a file missing or unreadable,
   *     not PEM, a key that is not the first certificate's, a certificate outside its validity
   *     period; or a reload interval out of range
   */
  public TlsSettings {
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
    Objects.requireNonNull(clientCa, "clientCa");
    Objects.requireNonNull(reloadInterval, "reloadInterval");
    if (reloadInterval.compareTo(Duration.ofMillis(100)) < 0
        || reloadInterval.compareTo(Duration.ofHours(1)) > 0) {
      throw new LoamException(
          Kind.INVALID,
          "TLS reload interval must be within 100ms..1h reloadInterval=" + reloadInterval);
    }
    // Read now: a bad file is a settings error, not a failure of the first handshake.
    TlsMaterial.load(certificateChain, privateKey, clientCa, 0);
  }

  /** Server-side TLS without client certificates, checked for changes every 5 s. */
  public static TlsSettings of(Path certificateChain, Path privateKey) {
    return new TlsSettings(certificateChain, privateKey, Optional.empty(), DEFAULT_RELOAD_INTERVAL);
  }

  /** The same, requiring peers to present a certificate issued by a CA in {@code caFile}. */
  public TlsSettings withClientCa(Path caFile) {
    return new TlsSettings(certificateChain, privateKey, Optional.of(caFile), reloadInterval);
  }

  /** The same, looking for replaced files at most every {@code interval}. */
  public TlsSettings withReloadInterval(Duration interval) {
    return new TlsSettings(certificateChain, privateKey, clientCa, interval);
  }

  /** Whether peers must present a certificate ({@link #clientCa} is set). */
  public boolean requiresClientCertificate() {
    return clientCa.isPresent();
  }
}
