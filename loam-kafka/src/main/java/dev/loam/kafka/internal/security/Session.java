package dev.loam.kafka.internal.security;

import dev.loam.api.Principal;
import dev.loam.api.Role;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authentication state of one connection (docs/reference/kafka.md "Authentication"): who it
 * authenticated as, hence its namespace and roles, and the SASL exchange in progress. A connection
 * starts unauthenticated; SaslHandshake picks a mechanism, SaslAuthenticate carries the exchange's
 * messages to kafka-clients' SASL server for it, and its success sets the principal. A later
 * handshake on the same connection re-authenticates (Kafka's KIP-368), with the same key only.
 *
 * <p>{@link #admit} is asked before every request: while authentication is required, only
 * ApiVersions and the SASL APIs pass an unauthenticated connection, and an authenticated one passes
 * while its key is active (a revocation applied on this node refuses the next request) and its
 * session has not expired. A refused request, and a failed exchange once its answer is written,
 * close the connection, as Kafka does.
 *
 * <p>Thread-safe: the connection asks from its event loop, exchanges run on the {@link
 * Authenticator}'s pool.
 */
public final class Session {
  private static final Logger LOG = LoggerFactory.getLogger(Session.class);
  private static final String PLAIN = "PLAIN";

  private final Authenticator auth;
  private final String listenerNamespace;
  private volatile Principal principal;
  private volatile long expiresAtNanos;
  private volatile boolean expires;
  private volatile boolean closeRequested;
  private volatile boolean rawTokens;
  private volatile String forwardedNamespace;

  // The exchange in progress; guarded by this.
  private SaslServer server;
  private SaslCallbacks callbacks;
  private String mechanism;

  /** A session of a listener that authenticates with {@code auth}. */
  public Session(Authenticator auth) {
    this.auth = auth;
    this.listenerNamespace = auth.listenerNamespace();
  }

  private Session(String listenerNamespace) {
    this.auth = null;
    this.listenerNamespace = listenerNamespace;
  }

  /**
   * A session that never authenticates: every request acts in {@code namespace}, with every role.
   */
  public static Session open(String namespace) {
    return new Session(namespace);
  }

  /** Who the connection authenticated as; empty while it has not. */
  public Optional<Principal> principal() {
    return Optional.ofNullable(principal);
  }

  /**
   * The namespace the connection's topics live in: a namespace-scoped key's own, else (a
   * cluster-wide key, or no authentication) the listener's.
   */
  public String namespace() {
    String f = forwardedNamespace;
    if (f != null) {
      return f;
    }
    Principal p = principal;
    return p == null || p.clusterWide() ? listenerNamespace : p.namespace();
  }

  /**
   * Whether the connection may do what {@code role} allows in its namespace. A connection that was
   * admitted without authenticating (none was required) may do everything.
   */
  public boolean has(Role role) {
    Principal p = principal;
    return p == null || p.roles().contains(role);
  }

  /** The key id for refusal messages, or {@code anonymous}. */
  public String who() {
    Principal p = principal;
    return p == null ? "anonymous" : "key=" + p.keyId();
  }

  /**
   * Why a request of {@code api} is refused on this connection; empty when it may go on. Refused:
   * any API but ApiVersions and SASL before authenticating while authentication is required, and
   * any after the key was revoked or the session expired.
   */
  public Optional<String> admit(ApiKeys api) {
    if (auth == null
        || api == ApiKeys.API_VERSIONS
        || api == ApiKeys.SASL_HANDSHAKE
        || api == ApiKeys.SASL_AUTHENTICATE) {
      return Optional.empty();
    }
    Principal p = principal;
    if (p != null) {
      if (expires && auth.nanoTime() - expiresAtNanos >= 0) {
        return Optional.of("the SASL session expired without re-authentication " + who());
      }
      if (auth.active(p.keyId()).isEmpty()) {
        return Optional.of("the API key is revoked " + who());
      }
      return Optional.empty();
    }
    if (auth.required()) {
      return Optional.of("SASL authentication is required before api=" + api);
    }
    return Optional.empty();
  }

  /** Whether the connection is to close once the answer now being written is sent. */
  public boolean takeCloseRequest() {
    boolean c = closeRequested;
    closeRequested = false;
    return c;
  }

  /**
   * SaslHandshake: starts an exchange of {@code requested}. NONE, or UNSUPPORTED_SASL_MECHANISM for
   * a mechanism not offered and ILLEGAL_SASL_STATE during another exchange (both close the
   * connection after the answer). With {@code rawTokens} (SaslHandshake v0) the exchange's messages
   * then come as bare size-prefixed frames ({@link #awaitsRawToken}) instead of SaslAuthenticate.
   */
  public synchronized Errors handshake(String requested, boolean rawTokens) {
    return handshake(requested, rawTokens, false);
  }

  /**
   * As {@link #handshake(String, boolean)}; with {@code forwarded} (the client id of another
   * gateway's owner forwarding) the exchange is SASL/PLAIN with a {@link ForwardingToken} as the
   * password, accepted whichever mechanisms the listener offers clients: the connection then acts
   * as the token's key in the token's namespace.
   */
  public synchronized Errors handshake(String requested, boolean rawTokens, boolean forwarded) {
    if (auth == null) {
      closeRequested = true;
      return Errors.ILLEGAL_SASL_STATE;
    }
    if (server != null) {
      closeRequested = true;
      return Errors.ILLEGAL_SASL_STATE;
    }
    boolean offered = forwarded ? PLAIN.equals(requested) : auth.mechanisms().contains(requested);
    if (requested == null || !offered) {
      closeRequested = true;
      return Errors.UNSUPPORTED_SASL_MECHANISM;
    }
    callbacks = auth.callbacks(requested, forwarded);
    server = auth.server(requested, callbacks);
    mechanism = requested;
    this.rawTokens = rawTokens;
    return Errors.NONE;
  }

  /**
   * Whether the next frame is a bare SASL token of a v0 handshake's exchange, to hand to {@link
   * #authenticate} as it is (its answer is a bare size-prefixed token too, and a failure closes the
   * connection without one, as Kafka does).
   */
  public synchronized boolean awaitsRawToken() {
    return rawTokens && server != null;
  }

  /** The mechanisms SaslHandshake lists. */
  public java.util.List<String> mechanisms() {
    return auth == null ? java.util.List.of() : auth.mechanisms();
  }

  /**
   * SaslAuthenticate: hands {@code token} to the exchange's SASL server, off the network thread,
   * and completes with the answer: the server's next message, and on the exchange's success the
   * session's lifetime (version 1 and later). A failure answers SASL_AUTHENTICATION_FAILED with a
   * message that names no secret, and closes the connection after it.
   */
  public CompletableFuture<SaslAuthenticateResponseData> authenticate(byte[] token) {
    SaslServer s;
    synchronized (this) {
      s = server;
    }
    if (s == null) {
      closeRequested = true;
      return CompletableFuture.completedFuture(
          failure(Errors.ILLEGAL_SASL_STATE, "SaslAuthenticate without a SaslHandshake before it"));
    }
    try {
      return CompletableFuture.supplyAsync(() -> step(s, token), auth.exchanges());
    } catch (RejectedExecutionException e) {
      return CompletableFuture.completedFuture(
          fail("Authentication failed: the gateway is too busy authenticating, retry later"));
    }
  }

  private synchronized SaslAuthenticateResponseData step(SaslServer s, byte[] token) {
    if (s != server) {
      return fail("Authentication failed: the exchange was superseded");
    }
    byte[] challenge;
    try {
      challenge = s.evaluateResponse(token);
    } catch (SaslAuthenticationException e) {
      // kafka-clients' own messages for a refused exchange; they name no credential.
      return fail(e.getMessage());
    } catch (SaslException | RuntimeException e) {
      // The exception's class only: a parser's message may quote the client's bytes.
      LOG.debug(
          "SASL exchange failed mechanism={} {}: {}", mechanism, who(), e.getClass().getName());
      return fail(
          "Authentication failed during authentication due to invalid credentials with SASL"
              + " mechanism "
              + mechanism);
    }
    if (!s.isComplete()) {
      return new SaslAuthenticateResponseData()
          .setErrorCode(Errors.NONE.code())
          .setAuthBytes(challenge == null ? new byte[0] : challenge);
    }
    Optional<Principal> who = callbacks.verified();
    if (who.isEmpty()) {
      who = auth.active(s.getAuthorizationID());
    }
    if (who.isEmpty()) {
      return fail("Authentication failed: Invalid user credentials");
    }
    Principal before = principal;
    if (before != null && !before.keyId().equals(who.get().keyId())) {
      return fail(
          "Authentication failed: re-authentication must use the connection's API key " + who());
    }
    Optional<String> ns = callbacks.forwardedNamespace();
    if (forwardedNamespace != null && !ns.equals(Optional.of(forwardedNamespace))) {
      return fail("Authentication failed: re-authentication must keep the forwarded namespace");
    }
    principal = who.get();
    ns.ifPresent(n -> forwardedNamespace = n);
    long lifetimeMs = auth.reauthInterval().toMillis();
    if (lifetimeMs > 0) {
      expiresAtNanos = auth.nanoTime() + auth.reauthInterval().toNanos();
      expires = true;
    }
    dispose();
    LOG.debug("authenticated mechanism={} key={}", mechanism, principal.keyId());
    return new SaslAuthenticateResponseData()
        .setErrorCode(Errors.NONE.code())
        .setAuthBytes(challenge == null ? new byte[0] : challenge)
        .setSessionLifetimeMs(lifetimeMs);
  }

  private SaslAuthenticateResponseData fail(String message) {
    synchronized (this) {
      dispose();
    }
    closeRequested = true;
    LOG.debug("SASL authentication failed {}: {}", who(), message);
    return failure(Errors.SASL_AUTHENTICATION_FAILED, message);
  }

  private static SaslAuthenticateResponseData failure(Errors e, String message) {
    return new SaslAuthenticateResponseData()
        .setErrorCode(e.code())
        .setErrorMessage(message)
        .setAuthBytes(new byte[0]);
  }

  private void dispose() {
    if (server != null) {
      try {
        server.dispose();
      } catch (SaslException e) {
        // Nothing is held that a failure could leak.
      }
    }
    server = null;
    callbacks = null;
    rawTokens = false;
  }
}
