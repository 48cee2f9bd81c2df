package dev.loam.kafka.internal.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The contract of the gateway's SASL token parsing, shared by the fuzz target and the property
 * test: whatever bytes a client sends as a SASL message, the server either refuses them with {@link
 * SaslException} or {@link SaslAuthenticationException} (which the session answers as
 * SASL_AUTHENTICATION_FAILED), or, for a message it accepts, goes on; it completes only when the
 * password was proven, and a refusal's message never holds the password.
 */
final class SaslTokenContract {
  private SaslTokenContract() {}

  static final String PASSWORD = "Zq3kVn0pWmX8rT2yLs6hJd4fGb1cAe9uIo7PlKjHgFd";

  private static final Map<ScramMechanism, ScramCredential> CREDENTIALS =
      new java.util.EnumMap<>(ScramMechanism.class);

  static synchronized ScramCredential credential(ScramMechanism m) throws Exception {
    ScramCredential c = CREDENTIALS.get(m);
    if (c == null) {
      c = ScramExchanges.credential(m, PASSWORD);
      CREDENTIALS.put(m, c);
    }
    return c;
  }

  /**
   * Feeds {@code token} to a fresh server: mode 0 and 1 are SCRAM-SHA-256/512's first message, 2
   * and 3 their final message after a valid first exchange, 4 a PLAIN message.
   */
  static void check(int mode, byte[] token) throws Exception {
    int m = Math.floorMod(mode, 5);
    SaslServer server;
    boolean mayComplete = false;
    if (m == 4) {
      server = new PlainSaslServer(SaslTokenContract::plainCallbacks);
      mayComplete = isValidPlain(token);
    } else {
      ScramMechanism mech =
          m % 2 == 0 ? ScramMechanism.SCRAM_SHA_256 : ScramMechanism.SCRAM_SHA_512;
      ScramCredential c = credential(mech);
      server =
          new ScramServer(
              mech, u -> u.equals(ScramExchanges.USER) ? Optional.of(c) : Optional.empty());
      if (m >= 2) {
        SaslClient client = ScramExchanges.client(mech, ScramExchanges.USER, PASSWORD, Map.of());
        server.evaluateResponse(client.evaluateChallenge(new byte[0]));
      }
    }
    try {
      server.evaluateResponse(token);
      if (server.isComplete()) {
        assertThat(mayComplete).as("completed without proving the password").isTrue();
      }
    } catch (SaslException | SaslAuthenticationException e) {
      assertThat(server.isComplete()).isFalse();
      assertThat(String.valueOf(e.getMessage())).doesNotContain(PASSWORD);
    }
  }

  private static boolean isValidPlain(byte[] token) {
    String s = new String(token, StandardCharsets.UTF_8);
    return s.equals("\0" + ScramExchanges.USER + "\0" + PASSWORD)
        || s.equals(ScramExchanges.USER + "\0" + ScramExchanges.USER + "\0" + PASSWORD);
  }

  private static void plainCallbacks(Callback[] callbacks) {
    String name = null;
    for (Callback c : callbacks) {
      if (c instanceof NameCallback n) {
        name = n.getDefaultName();
      } else if (c instanceof PlainAuthenticateCallback p) {
        p.authenticated(
            ScramExchanges.USER.equals(name) && PASSWORD.equals(new String(p.password())));
      }
    }
  }
}
