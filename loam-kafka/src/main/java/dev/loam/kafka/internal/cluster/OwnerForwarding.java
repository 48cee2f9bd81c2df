package dev.loam.kafka.internal.cluster;

import dev.loam.api.Log;
import dev.loam.api.NotOwnerException;
import dev.loam.api.Principal;
import dev.loam.api.ScramCredential;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.kafka.internal.errors.ErrorMapping;
import dev.loam.kafka.internal.security.ForwardingToken;
import dev.loam.tls.TlsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.protocol.Errors;

/**
 * Carries a topic admin request that only a stream's owner may apply (delete, grow, alter configs:
 * owner-bound in ownership-and-routing.txt) to the owner's own Kafka listener. Kafka clients send
 * admin requests to the controller Metadata names, and every gateway names itself, so a gateway
 * that is not the owner forwards: with a Kafka {@link Admin} client bootstrapped on the owner's
 * listener, as named by the {@link NotOwnerException} and the node registry. A forwarding client is
 * told about the owner alone (Metadata and DescribeCluster name only the answering node for its
 * client id), so every request it sends reaches the owner. A forwarded request carries the client
 * id {@value #CLIENT_ID} and is never forwarded again: an owner that moved meanwhile answers
 * NOT_CONTROLLER and the original client retries.
 *
 * <p>The forwarded request acts as the caller (docs/security.md "Topic admin forwarded between
 * nodes"). A caller that authenticated with an API key is forwarded over SASL/PLAIN as the same key
 * id, its password a {@link ForwardingToken} for the owner node and the caller's namespace, valid
 * for {@link #TOKEN_LIFETIME}: the owner checks the token and the key's roles again, so a key
 * without the admin role, or revoked meanwhile, is refused there too. A caller of a listener that
 * did not ask it to authenticate is forwarded without SASL. When this listener speaks TLS, so does
 * the forwarding client (the cluster's gateways are configured alike): it trusts {@link
 * KafkaGatewaySettings#forwardingTrust()}, else the listener's client CA, else the JVM's trust
 * store, and presents this listener's certificate when the listener requires client certificates.
 * Each forwarded operation has its own client, closed once it is answered: topic admin is rare and
 * a token must not outlive its lifetime in a cached connection.
 */
public final class OwnerForwarding implements AutoCloseable {
  /** The client id of forwarded requests. */
  public static final String CLIENT_ID = "loam-owner-forward";

  /** How long a forwarding token is valid: the client's whole timeout and some clock skew. */
  public static final Duration TOKEN_LIFETIME = Duration.ofMinutes(2);

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final Log log;
  private final KafkaEndpoints endpoints;
  private final Optional<TlsSettings> tls;
  private final Optional<Path> trust;
  private final LongSupplier wallClock;
  private final Set<Admin> open = ConcurrentHashMap.newKeySet();
  private final ExecutorService closer =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "loam-kafka-forward-close");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean closed;

  public OwnerForwarding(Log log, KafkaEndpoints endpoints, KafkaGatewaySettings settings) {
    this(log, endpoints, settings, System::currentTimeMillis);
  }

  OwnerForwarding(
      Log log, KafkaEndpoints endpoints, KafkaGatewaySettings settings, LongSupplier wallClock) {
    this.log = log;
    this.endpoints = endpoints;
    this.tls = settings.tls();
    this.trust = settings.forwardingTrust().or(() -> tls.flatMap(TlsSettings::clientCa));
    this.wallClock = wallClock;
  }

  /** What the owner answered: {@link Errors#NONE}, or the error and its message. */
  public record Answer(Errors error, String message) {
    static final Answer OK = new Answer(Errors.NONE, null);
  }

  /** The owner of a stream: its node id and its Kafka listener's {@code host:port}. */
  public record Owner(String nodeId, String address) {}

  /** Whether a request came from another gateway's forwarding (and so must not go on). */
  public static boolean isForwarded(String clientId) {
    return CLIENT_ID.equals(clientId);
  }

  /**
   * The owner when {@code failure} is a {@link NotOwnerException} naming another node that serves a
   * Kafka listener; empty otherwise (then the failure is answered as it is).
   */
  public CompletableFuture<Optional<Owner>> owner(Throwable failure) {
    if (!(ErrorMapping.unwrap(failure) instanceof NotOwnerException n) || closed) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (n.ownerNodeId() == null || n.ownerNodeId().equals(endpoints.selfNodeId())) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return log.listNodes(Optional.empty())
        .thenApply(
            nodes ->
                nodes.stream()
                    .filter(d -> d.nodeId().equals(n.ownerNodeId()))
                    .findFirst()
                    .flatMap(endpoints::address)
                    .map(a -> new Owner(n.ownerNodeId(), a.toString())));
  }

  /**
   * Sends one admin operation to {@code owner} as {@code caller} (empty: a caller that did not
   * authenticate) acting in {@code namespace}, and completes with the owner's answer.
   */
  public CompletableFuture<Answer> forward(
      Owner owner,
      Optional<Principal> caller,
      String namespace,
      Function<Admin, KafkaFuture<Void>> operation) {
    CompletableFuture<Answer> out = new CompletableFuture<>();
    Admin admin;
    try {
      admin = Admin.create(clientConfig(owner, caller, namespace));
    } catch (RuntimeException e) {
      Throwable c = ErrorMapping.unwrap(e);
      return CompletableFuture.completedFuture(
          new Answer(Errors.forException(c), "cannot forward to the owner: " + c.getMessage()));
    }
    open.add(admin);
    try {
      operation
          .apply(admin)
          .whenComplete(
              (v, e) -> {
                if (e == null) {
                  out.complete(Answer.OK);
                } else {
                  Throwable c = ErrorMapping.unwrap(e);
                  out.complete(new Answer(Errors.forException(c), c.getMessage()));
                }
              });
    } catch (RuntimeException e) {
      out.complete(new Answer(Errors.forException(e), e.getMessage()));
    }
    // Closed on another thread: the answer completes on the client's own I/O thread.
    out.whenComplete((a, e) -> closeLater(admin));
    return out;
  }

  /**
   * The forwarding client's settings for one operation.
   *
   * @throws org.apache.kafka.common.errors.ApiException when the caller's key has no credential
   *     (revoked meanwhile) or this listener's certificate cannot be read
   */
  Map<String, Object> clientConfig(Owner owner, Optional<Principal> caller, String namespace) {
    Map<String, Object> c = new HashMap<>();
    c.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, owner.address());
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, CLIENT_ID);
    c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
    boolean sasl = caller.isPresent();
    if (sasl) {
      Principal p = caller.get();
      ScramCredential k =
          log.scramCredential(p.keyId(), ScramCredential.SCRAM_SHA_256)
              .orElseThrow(
                  () ->
                      new org.apache.kafka.common.errors.SaslAuthenticationException(
                          "the API key is revoked key=" + p.keyId()));
      String token =
          ForwardingToken.mint(
              k.serverKey(),
              p.keyId(),
              namespace,
              owner.nodeId(),
              wallClock.getAsLong() + TOKEN_LIFETIME.toMillis());
      c.put(SaslConfigs.SASL_MECHANISM, "PLAIN");
      // A Password-typed setting: Kafka's config log shows it as [hidden].
      c.put(
          SaslConfigs.SASL_JAAS_CONFIG,
          "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
              + p.keyId()
              + "\" password=\""
              + token
              + "\";");
    }
    if (tls.isEmpty()) {
      c.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, sasl ? "SASL_PLAINTEXT" : "PLAINTEXT");
      return c;
    }
    c.put(AdminClientConfig.SECURITY_PROTOCOL_CONFIG, sasl ? "SASL_SSL" : "SSL");
    trust.ifPresent(
        t -> {
          c.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
          c.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, t.toString());
        });
    TlsSettings t = tls.get();
    if (t.requiresClientCertificate()) {
      c.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
      c.put(SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG, read(t.certificateChain()));
      c.put(SslConfigs.SSL_KEYSTORE_KEY_CONFIG, read(t.privateKey()));
    }
    return c;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private void closeLater(Admin admin) {
    try {
      closer.execute(
          () -> {
            open.remove(admin);
            admin.close(Duration.ofSeconds(2));
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Closing: close() closes every open client.
    }
  }

  @Override
  public void close() {
    closed = true;
    closer.shutdown();
    for (Admin a : open) {
      a.close(Duration.ofSeconds(2));
    }
    open.clear();
  }
}
