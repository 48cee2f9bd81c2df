package dev.loam.kafka.internal.security;

import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslClient;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;

/** Test support: kafka-clients' SCRAM client against a {@link ScramServer} of one user. */
final class ScramExchanges {
  private ScramExchanges() {}

  static final String USER = "abcdefghijklmnop";

  /** A credential for {@code password}, as the metastore stores one (4096 iterations). */
  static ScramCredential credential(ScramMechanism m, String password) throws Exception {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    ScramFormatter f = new ScramFormatter(m);
    return f.generateCredential(salt, f.saltedPassword(password, salt, 4096), 4096);
  }

  static ScramServer server(ScramMechanism m, ScramCredential c) {
    return new ScramServer(m, u -> u.equals(USER) ? Optional.of(c) : Optional.empty());
  }

  /** kafka-clients' client of {@code user} with {@code password}, and optional extensions. */
  static SaslClient client(
      ScramMechanism m, String user, String password, Map<String, String> extensions)
      throws Exception {
    return new ScramSaslClient(
        m,
        (Callback[] callbacks) -> {
          for (Callback c : callbacks) {
            if (c instanceof NameCallback n) {
              n.setName(user);
            } else if (c instanceof PasswordCallback p) {
              p.setPassword(password.toCharArray());
            } else if (c instanceof ScramExtensionsCallback e) {
              e.extensions(extensions);
            } else {
              throw new UnsupportedCallbackException(c);
            }
          }
        });
  }
}
