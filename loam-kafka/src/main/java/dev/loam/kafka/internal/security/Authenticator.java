package dev.loam.kafka.internal.security;

import dev.loam.api.Log;
import dev.loam.api.Principal;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.kafka.KafkaGatewaySettings.Authentication;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.security.sasl.SaslServer;

/**
 * What every connection of one gateway shares for authentication: the node's API keys (through
 * {@link Log}), the listener's mode and SASL mechanisms, and the small pool where SASL exchanges
 * run. A SASL/PLAIN exchange verifies the secret with {@link Log#authenticate}, which derives a key
 * (milliseconds of CPU) and is waited for, so no exchange ever runs on a network thread.
 *
 * <p>Thread-safe. {@link #close()} stops the pool.
 */
public final class Authenticator implements AutoCloseable {
  /** How long a SASL/PLAIN exchange waits for the key check before failing it. */
  static final Duration VERIFY_TIMEOUT = Duration.ofSeconds(10);

  private final Log log;
  private final String listenerNamespace;
  private final Authentication mode;
  private final List<String> mechanisms;
  private final Duration reauthInterval;
  private final ExecutorService exchanges;
  private final LongSupplier nanoClock;
  private final String selfNodeId;

  /** The authenticator of the gateway of node {@code selfNodeId}. */
  public Authenticator(Log log, String selfNodeId, KafkaGatewaySettings settings) {
    this(log, selfNodeId, settings, System::nanoTime);
  }

  Authenticator(Log log, String selfNodeId, KafkaGatewaySettings settings, LongSupplier nanoClock) {
    this.log = log;
    this.selfNodeId = selfNodeId;
    this.listenerNamespace = settings.namespace();
    this.mode = settings.authentication();
    this.mechanisms = List.copyOf(settings.saslMechanisms());
    this.reauthInterval = settings.reauthInterval();
    this.nanoClock = nanoClock;
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            2,
            2,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(1024),
            r -> {
              Thread t = new Thread(r, "loam-kafka-sasl");
              t.setDaemon(true);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
    this.exchanges = pool;
  }

  /** The namespace of a connection with no namespace-scoped key. */
  public String listenerNamespace() {
    return listenerNamespace;
  }

  /** The mechanisms offered, in the order SaslHandshake lists them. */
  public List<String> mechanisms() {
    return mechanisms;
  }

  /** The session lifetime SaslAuthenticate announces; zero when sessions never expire. */
  public Duration reauthInterval() {
    return reauthInterval;
  }

  /** Whether a connection must authenticate now (the mode, and whether any key is active). */
  public boolean required() {
    return switch (mode) {
      case NONE -> false;
      case REQUIRED -> true;
      case WHEN_KEYS_EXIST -> log.hasActiveApiKeys();
    };
  }

  /** Whether this listener ever authenticates (SaslHandshake is refused when it does not). */
  public boolean enabled() {
    return mode != Authentication.NONE;
  }

  /** The current principal of a key, empty once it is revoked. */
  public Optional<Principal> active(String keyId) {
    return log.activePrincipal(keyId);
  }

  /** A new SASL server of {@code mechanism} (one of {@link #mechanisms()}). */
  SaslServer server(String mechanism, SaslCallbacks callbacks) {
    return SaslServers.create(mechanism, callbacks);
  }

  /**
   * Callbacks answering a SASL server from the node's API keys; for another gateway's forwarding
   * connection ({@code forwarded}), from forwarding tokens only.
   */
  SaslCallbacks callbacks(String mechanism, boolean forwarded) {
    return new SaslCallbacks(log, mechanism, VERIFY_TIMEOUT, selfNodeId, forwarded);
  }

  ExecutorService exchanges() {
    return exchanges;
  }

  long nanoTime() {
    return nanoClock.getAsLong();
  }

  @Override
  public void close() {
    exchanges.shutdownNow();
  }
}
