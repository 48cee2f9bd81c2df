package dev.loam.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live TLS material of one listener: a key manager and (with a client CA) a trust manager for
 * any JSSE-based TLS stack (Netty's {@code SslContextBuilder.forServer(KeyManager)}, Ratis's gRPC
 * TLS configuration), both reading the PEM files of a {@link TlsSettings} and reading them again
 * after they change.
 *
 * <p>There is no watcher thread: a handshake that starts at least {@link
 * TlsSettings#reloadInterval()} after the last check compares the files' sizes and modification
 * times with those read, and if one changed reads them all again. Connections from then on use the
 * new certificate, key and CA; open connections keep theirs. A change that does not read (a half
 * written file, a key of another certificate) is logged and the previous material kept; the next
 * check tries again. To replace a pair without a moment where the key and certificate disagree,
 * write both to temporary files and rename them into place.
 *
 * <p>Thread-safe: handshakes on any thread; a reload happens on the handshake thread that noticed
 * the change, while concurrent handshakes use the material they already had.
 */
public final class ReloadingTls {
  private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);

  private final TlsSettings settings;
  private final LongSupplier nanoClock;
  private final long intervalNanos;
  private final Object reloadLock = new Object();
  private volatile TlsMaterial current;

  /** The reading before {@link #current}: a handshake may have chosen its alias just before. */
  private volatile TlsMaterial previous;

  /** When the files were last compared; a handshake that wins the swap past the interval checks. */
  private final AtomicLong checkedAtNanos = new AtomicLong();

  private ReloadingTls(TlsSettings settings, LongSupplier nanoClock) {
    this.settings = settings;
    this.nanoClock = nanoClock;
    this.intervalNanos = settings.reloadInterval().toNanos();
    this.current =
        TlsMaterial.load(
            settings.certificateChain(), settings.privateKey(), settings.clientCa(), 0);
    this.previous = current;
    this.checkedAtNanos.set(nanoClock.getAsLong());
  }

  /**
   * Reads the files of {@code settings}.
   *
   * @throws dev.loam.error.LoamException INVALID if they no longer read (see {@link TlsSettings})
   */
  public static ReloadingTls open(TlsSettings settings) {
    return new ReloadingTls(Objects.requireNonNull(settings, "settings"), System::nanoTime);
  }

  /** As {@link #open(TlsSettings)}, timing the reload interval by {@code nanoClock}. */
  static ReloadingTls open(TlsSettings settings, LongSupplier nanoClock) {
    return new ReloadingTls(settings, nanoClock);
  }

  public TlsSettings settings() {
    return settings;
  }

  /** The certificate handshakes present now (the first of the chain). */
  public X509Certificate certificate() {
    return current.leaf();
  }

  /** How many times the files were read again since {@link #open}. */
  public long reloads() {
    return current.generation();
  }

  /** The key manager: this side's certificate chain and key, as currently read. */
  public X509ExtendedKeyManager keyManager() {
    return keyManager;
  }

  /**
   * The trust manager checking a peer's certificate against the client CA, as currently read; empty
   * without a client CA.
   */
  public Optional<X509ExtendedTrustManager> trustManager() {
    return settings.clientCa().isPresent() ? Optional.of(trustManager) : Optional.empty();
  }

  /**
   * Reads the files again now if they changed since last read, whatever the interval. Handshakes
   * call this on their own once per interval.
   *
   * @return whether a new reading is in use
   */
  public boolean reloadIfChanged() {
    synchronized (reloadLock) {
      checkedAtNanos.set(nanoClock.getAsLong());
      TlsMaterial now = current;
      List<TlsMaterial.FileStamp> stamps =
          TlsMaterial.stampsOf(
              settings.certificateChain(), settings.privateKey(), settings.clientCa());
      if (stamps.equals(now.stamps())) {
        return false;
      }
      TlsMaterial next;
      try {
        next =
            TlsMaterial.load(
                settings.certificateChain(),
                settings.privateKey(),
                settings.clientCa(),
                now.generation() + 1);
      } catch (RuntimeException e) {
        LOG.warn(
            "TLS files changed but do not read; keeping the certificate in use subject={}: {}",
            now.leaf().getSubjectX500Principal().getName(),
            e.getMessage());
        return false;
      }
      previous = now;
      current = next;
      LOG.info(
          "TLS files reloaded subject={} notAfter={} file={}",
          next.leaf().getSubjectX500Principal().getName(),
          next.leaf().getNotAfter().toInstant(),
          settings.certificateChain());
      return true;
    }
  }

  private TlsMaterial material() {
    long now = nanoClock.getAsLong();
    long last = checkedAtNanos.get();
    // One handshake per interval looks at the files; the others go on with the current material.
    if (now - last >= intervalNanos && checkedAtNanos.compareAndSet(last, now)) {
      reloadIfChanged();
    }
    return current;
  }

  private TlsMaterial byAlias(String alias) {
    TlsMaterial c = current;
    if (c.alias().equals(alias)) {
      return c;
    }
    TlsMaterial p = previous;
    return p.alias().equals(alias) ? p : null;
  }

  private final X509ExtendedKeyManager keyManager =
      new X509ExtendedKeyManager() {
        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine e) {
          return material().keyManager().chooseEngineServerAlias(keyType, issuers, e);
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine e) {
          return material().keyManager().chooseEngineClientAlias(keyType, issuers, e);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
          return material().keyManager().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
          return material().keyManager().chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
          return current.keyManager().getServerAliases(keyType, issuers);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
          return current.keyManager().getClientAliases(keyType, issuers);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
          TlsMaterial m = byAlias(alias);
          return m == null ? null : m.keyManager().getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
          TlsMaterial m = byAlias(alias);
          return m == null ? null : m.keyManager().getPrivateKey(alias);
        }
      };

  private final X509ExtendedTrustManager trustManager =
      new X509ExtendedTrustManager() {
        private X509ExtendedTrustManager delegate() {
          return material()
              .trustManager()
              .orElseThrow(() -> new IllegalStateException("no client CA configured"));
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
          delegate().checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
          delegate().checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
          delegate().checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
          delegate().checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType)
            throws CertificateException {
          delegate().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType)
            throws CertificateException {
          delegate().checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
          return current
              .trustManager()
              .map(X509ExtendedTrustManager::getAcceptedIssuers)
              .orElse(new X509Certificate[0]);
        }
      };
}
