package dev.loam.kafka;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The settings of a {@link KafkaGateway} listener: where it binds, what it advertises, which
 * namespace its topics live in, and its limits. Immutable; build with {@link #builder()}.
 *
 * @param host the address to bind (default {@code 127.0.0.1})
 * @param port the port to bind, 0 for an ephemeral one (default 9092)
 * @param advertisedHost the host clients are told to connect to, in Metadata; empty: the bind host
 *     (or {@code 127.0.0.1} when binding the wildcard address)
 * @param namespace the Loam namespace whose streams are this listener's topics (default {@code
 *     default}); created at start if absent
 * @param autoCreateTopics whether Metadata and Produce create a missing topic (Kafka's {@code
 *     auto.create.topics.enable}, default true)
 * @param defaultPartitions the partitions of an auto-created topic, and of CreateTopics asking for
 *     -1 (Kafka's {@code num.partitions}, default 1)
 * @param maxRequestBytes the largest request frame accepted; a bigger one closes the connection
 *     (Kafka's {@code socket.request.max.bytes}, default 100 MiB)
 * @param maxInFlightPerConnection requests of one connection processed at once; reading from the
 *     connection pauses while this many are pending (default 32; Kafka producers send at most 5)
 * @param maxFetchWait the upper bound applied to a Fetch request's {@code max_wait_ms} (default 30
 *     s)
 * @param ioThreads Netty event-loop threads (default: min(4, processors))
 * @param tls when present the listener speaks TLS only (Kafka's {@code SSL} security protocol): the
 *     certificate and key of the settings, and with their client CA every client must present a
 *     certificate issued by it ({@code ssl.client.auth=required}); replaced files are used by later
 *     connections. Empty: plaintext (default)
 * @param groups the consumer-group coordinator's session and rebalance limits ({@link
 *     GroupSettings#defaults()}: Kafka's)
 * @param authentication when a connection must authenticate with SASL before using any API but
 *     ApiVersions and the SASL ones (default {@link Authentication#WHEN_KEYS_EXIST})
 * @param saslMechanisms the SASL mechanisms offered, of {@link #SASL_MECHANISMS} (default all of
 *     them); empty offers none, so no connection can authenticate
 * @param reauthInterval the longest a SASL session lasts (Kafka's {@code
 *     connections.max.reauth.ms}): a client re-authenticates on its connection before then, and a
 *     request after it closes the connection; zero (the default) never expires a session
 * @param forwardingTrust PEM CA certificates that other nodes' Kafka listeners are checked against
 *     when this gateway forwards owner-bound topic admin to them (used only with {@code tls});
 *     empty: the client CA of {@code tls} if it has one, else the JVM's default trust store
 */
public record KafkaGatewaySettings(
    String host,
    int port,
    Optional<String> advertisedHost,
    String namespace,
    boolean autoCreateTopics,
    int defaultPartitions,
    int maxRequestBytes,
    int maxInFlightPerConnection,
    Duration maxFetchWait,
    int ioThreads,
    Optional<TlsSettings> tls,
    GroupSettings groups,
    Authentication authentication,
    Set<String> saslMechanisms,
    Duration reauthInterval,
    Optional<Path> forwardingTrust) {

  /** The SASL mechanisms the gateway implements, in the order a handshake lists them. */
  public static final List<String> SASL_MECHANISMS =
      List.of("SCRAM-SHA-512", "SCRAM-SHA-256", "PLAIN");

  /** When a connection must authenticate (docs/security.md "When authentication applies"). */
  public enum Authentication {
    /**
     * Open while the cluster holds no active API key; from the first one on, as {@link #REQUIRED}.
     */
    WHEN_KEYS_EXIST,
    /** Every connection authenticates before its first request other than ApiVersions and SASL. */
    REQUIRED,
    /** Never asks: every connection acts in the listener's namespace with every role. */
    NONE
  }

  /** Kafka's default {@code socket.request.max.bytes}: 100 MiB. */
  public static final int DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;

  public KafkaGatewaySettings {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(advertisedHost, "advertisedHost");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(maxFetchWait, "maxFetchWait");
    Objects.requireNonNull(tls, "tls");
    Objects.requireNonNull(groups, "groups");
    Objects.requireNonNull(authentication, "authentication");
    Objects.requireNonNull(saslMechanisms, "saslMechanisms");
    Objects.requireNonNull(reauthInterval, "reauthInterval");
    Objects.requireNonNull(forwardingTrust, "forwardingTrust");
    Set<String> mechanisms = new LinkedHashSet<>();
    for (String m : SASL_MECHANISMS) {
      if (saslMechanisms.contains(m)) {
        mechanisms.add(m);
      }
    }
    for (String m : saslMechanisms) {
      if (!mechanisms.contains(m)) {
        throw invalid(
            "unknown SASL mechanism (" + String.join(", ", SASL_MECHANISMS) + ") mechanism=" + m);
      }
    }
    saslMechanisms = Collections.unmodifiableSet(mechanisms);
    if (reauthInterval.isNegative()
        || (!reauthInterval.isZero() && reauthInterval.compareTo(Duration.ofSeconds(1)) < 0)) {
      throw invalid(
          "re-authentication interval must be 0 (off) or at least 1 s reauthInterval="
              + reauthInterval);
    }
    if (host.isBlank()) {
      throw invalid("host must not be blank host=" + host);
    }
    if (port < 0 || port > 65535) {
      throw invalid("port must be within 0..65535 port=" + port);
    }
    if (advertisedHost.isPresent() && advertisedHost.get().isBlank()) {
      throw invalid("advertised host must not be blank");
    }
    if (namespace.isBlank()) {
      throw invalid("namespace must not be blank");
    }
    if (defaultPartitions < 1 || defaultPartitions > 10_000) {
      throw invalid(
          "default partitions must be within 1..10000 defaultPartitions=" + defaultPartitions);
    }
    if (maxRequestBytes < 1024) {
      throw invalid(
          "max request size must be at least 1024 bytes maxRequestBytes=" + maxRequestBytes);
    }
    if (maxInFlightPerConnection < 1 || maxInFlightPerConnection > 1024) {
      throw invalid(
          "max in-flight requests per connection must be within 1..1024 maxInFlightPerConnection="
              + maxInFlightPerConnection);
    }
    if (maxFetchWait.isNegative() || maxFetchWait.compareTo(Duration.ofMinutes(5)) > 0) {
      throw invalid("max fetch wait must be within 0..5 min maxFetchWait=" + maxFetchWait);
    }
    if (ioThreads < 1 || ioThreads > 64) {
      throw invalid("io threads must be within 1..64 ioThreads=" + ioThreads);
    }
  }

  private static LoamException invalid(String message) {
    return new LoamException(Kind.INVALID, message);
  }

  /** The defaults: loopback, port 9092, namespace {@code default}, auto-creation on. */
  public static KafkaGatewaySettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The host clients connect to: the advertised host, else the bind host. */
  public String effectiveAdvertisedHost() {
    if (advertisedHost.isPresent()) {
      return advertisedHost.get();
    }
    return host.equals("0.0.0.0") || host.equals("::") ? "127.0.0.1" : host;
  }

  /** Builds {@link KafkaGatewaySettings}; every value starts at its default. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port = 9092;
    private Optional<String> advertisedHost = Optional.empty();
    private String namespace = "default";
    private boolean autoCreateTopics = true;
    private int defaultPartitions = 1;
    private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
    private int maxInFlightPerConnection = 32;
    private Duration maxFetchWait = Duration.ofSeconds(30);
    private int ioThreads = Math.min(4, Math.max(1, Runtime.getRuntime().availableProcessors()));
    private Optional<TlsSettings> tls = Optional.empty();
    private GroupSettings groups = GroupSettings.defaults();
    private Authentication authentication = Authentication.WHEN_KEYS_EXIST;
    private Set<String> saslMechanisms = new LinkedHashSet<>(SASL_MECHANISMS);
    private Duration reauthInterval = Duration.ZERO;
    private Optional<Path> forwardingTrust = Optional.empty();

    private Builder() {}

    public Builder host(String h) {
      this.host = h;
      return this;
    }

    /** 0 binds an ephemeral port; {@link KafkaGateway#port()} tells which. */
    public Builder port(int p) {
      this.port = p;
      return this;
    }

    public Builder advertisedHost(String h) {
      this.advertisedHost = Optional.of(h);
      return this;
    }

    public Builder namespace(String ns) {
      this.namespace = ns;
      return this;
    }

    public Builder autoCreateTopics(boolean on) {
      this.autoCreateTopics = on;
      return this;
    }

    public Builder defaultPartitions(int n) {
      this.defaultPartitions = n;
      return this;
    }

    public Builder maxRequestBytes(int bytes) {
      this.maxRequestBytes = bytes;
      return this;
    }

    public Builder maxInFlightPerConnection(int n) {
      this.maxInFlightPerConnection = n;
      return this;
    }

    public Builder maxFetchWait(Duration d) {
      this.maxFetchWait = d;
      return this;
    }

    public Builder ioThreads(int n) {
      this.ioThreads = n;
      return this;
    }

    /** TLS on the listener (Kafka's {@code SSL} protocol); default plaintext. */
    public Builder tls(TlsSettings t) {
      this.tls = Optional.of(Objects.requireNonNull(t, "tls"));
      return this;
    }

    /** When connections must authenticate; default {@link Authentication#WHEN_KEYS_EXIST}. */
    public Builder authentication(Authentication a) {
      this.authentication = Objects.requireNonNull(a, "authentication");
      return this;
    }

    /** The SASL mechanisms offered (of {@link #SASL_MECHANISMS}); default all. */
    public Builder saslMechanisms(Set<String> mechanisms) {
      this.saslMechanisms =
          new LinkedHashSet<>(Objects.requireNonNull(mechanisms, "saslMechanisms"));
      return this;
    }

    /** Kafka's {@code connections.max.reauth.ms}; zero (default) never expires a session. */
    public Builder reauthInterval(Duration d) {
      this.reauthInterval = d;
      return this;
    }

    /**
     * The PEM CA certificates other nodes' TLS Kafka listeners are checked against when this
     * gateway forwards topic admin to a stream's owner; default the TLS client CA, else the JVM's.
     */
    public Builder forwardingTrust(Path caPem) {
      this.forwardingTrust = Optional.of(Objects.requireNonNull(caPem, "forwardingTrust"));
      return this;
    }

    /** The consumer-group coordinator's limits. */
    public Builder groups(GroupSettings g) {
      this.groups = g;
      return this;
    }

    /** Validates and builds; INVALID naming the first bad value. */
    public KafkaGatewaySettings build() {
      return new KafkaGatewaySettings(
          host,
          port,
          advertisedHost,
          namespace,
          autoCreateTopics,
          defaultPartitions,
          maxRequestBytes,
          maxInFlightPerConnection,
          maxFetchWait,
          ioThreads,
          tls,
          groups,
          authentication,
          saslMechanisms,
          reauthInterval,
          forwardingTrust);
    }
  }
}
