package dev.loam.kafka.internal.security;

import dev.loam.api.AuthenticationException;
import dev.loam.api.Log;
import dev.loam.api.Principal;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;

/**
 * Answers the callbacks of kafka-clients' SASL servers from the node's API keys, the key id being
 * the SASL user name: SASL/PLAIN's password check with {@link Log#authenticate} (waited for, on the
 * exchange pool), SASL/SCRAM's credential lookup with {@link Log#scramCredential} ({@link
 * ScramServer} asks {@link #scramCredential} directly; the stored {@code StoredKey} and {@code
 * ServerKey}; the secret itself is never held). One instance serves one exchange; Kafka's
 * delegation-token callbacks are unsupported, so a client asking for token authentication fails.
 */
final class SaslCallbacks implements CallbackHandler {
  private final Log log;
  private final String mechanism;
  private final Duration timeout;
  private final String selfNodeId;
  private final boolean forwarded;
  private volatile Principal verified;
  private volatile String forwardedNamespace;

  SaslCallbacks(Log log, String mechanism, Duration timeout) {
    this(log, mechanism, timeout, null, false);
  }

  /**
   * @param selfNodeId this node's id, which a forwarding token must name
   * @param forwarded whether the exchange is another gateway's forwarding connection: its PLAIN
   *     password must then be a {@link ForwardingToken} (and elsewhere a token is never accepted)
   */
  SaslCallbacks(Log log, String mechanism, Duration timeout, String selfNodeId, boolean forwarded) {
    this.log = log;
    this.mechanism = mechanism;
    this.timeout = timeout;
    this.selfNodeId = selfNodeId;
    this.forwarded = forwarded;
  }

  /** The namespace a forwarding token named; empty for any other exchange. */
  Optional<String> forwardedNamespace() {
    return Optional.ofNullable(forwardedNamespace);
  }

  /** The principal a SASL/PLAIN password check verified; empty for SCRAM or a failed check. */
  Optional<Principal> verified() {
    return Optional.ofNullable(verified);
  }

  @Override
  public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
    String name = null;
    for (Callback c : callbacks) {
      if (c instanceof NameCallback n) {
        name = n.getDefaultName();
      } else if (c instanceof PlainAuthenticateCallback p) {
        p.authenticated(checkPassword(name, p.password()));
      } else if (c instanceof ScramCredentialCallback s
          && c.getClass() == ScramCredentialCallback.class) {
        s.scramCredential(
            log.scramCredential(name, mechanism)
                .map(
                    k ->
                        new ScramCredential(k.salt(), k.storedKey(), k.serverKey(), k.iterations()))
                .orElse(null));
      } else {
        throw new UnsupportedCallbackException(c);
      }
    }
  }

  /** The stored SCRAM credential of an active key, in kafka-clients' form; empty otherwise. */
  Optional<ScramCredential> scramCredential(String keyId) {
    return log.scramCredential(keyId, mechanism)
        .map(k -> new ScramCredential(k.salt(), k.storedKey(), k.serverKey(), k.iterations()));
  }

  /**
   * A forwarding token for an active key, made for this node, and naming the key's own namespace
   * when the key is scoped to one.
   */
  private boolean checkToken(String keyId, String token) {
    Optional<Principal> p = log.activePrincipal(keyId);
    Optional<dev.loam.api.ScramCredential> c =
        log.scramCredential(keyId, dev.loam.api.ScramCredential.SCRAM_SHA_256);
    if (p.isEmpty() || c.isEmpty() || selfNodeId == null) {
      return false;
    }
    Optional<ForwardingToken.Claim> claim =
        ForwardingToken.verify(
            c.get().serverKey(), keyId, selfNodeId, token, System.currentTimeMillis());
    if (claim.isEmpty() || !p.get().coversNamespace(claim.get().namespace())) {
      return false;
    }
    forwardedNamespace = claim.get().namespace();
    verified = p.get();
    return true;
  }

  private boolean checkPassword(String keyId, char[] password) throws IOException {
    if (keyId == null || password == null) {
      return false;
    }
    String presented = new String(password);
    if (forwarded || ForwardingToken.looksLikeToken(presented)) {
      return forwarded && checkToken(keyId, presented);
    }
    try {
      verified = log.authenticate(keyId, presented).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthenticationException) {
        return false;
      }
      throw new IOException("the API key could not be checked: " + e.getCause().getMessage());
    } catch (TimeoutException e) {
      throw new IOException("the API key check timed out after " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted checking the API key");
    }
  }
}
