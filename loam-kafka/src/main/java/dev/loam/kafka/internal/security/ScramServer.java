package dev.loam.kafka.internal.security;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import java.util.function.Function;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;

/**
 * The server side of SASL/SCRAM-SHA-256 and -512 (RFC 5802, RFC 7677): two client messages, the
 * second proving knowledge of the secret against the stored {@code StoredKey}, answered with the
 * server's signature from {@code ServerKey}. Messages are parsed and signatures computed with
 * kafka-clients' own {@link ClientFirstMessage}, {@link ScramFormatter} and siblings, so the wire
 * format and arithmetic are exactly Kafka's.
 *
 * <p>Written here rather than taken as kafka-clients' {@code ScramSaslServer} for one reason:
 * librdkafka before 2.6.1 (the kcat of Debian 12, for one) repeats the client nonce in its final
 * message ({@code r=<client nonce><client nonce><server nonce>}); Kafka 3.8.1 to 3.9 accepted that
 * (a nonce ending in the server's), Kafka 4's server accepts only the exact nonce and so refuses
 * those clients. This server accepts the exact nonce and that one repeated form, nothing else: the
 * final message still has to carry the fresh server nonce, and its proof is computed over the
 * message as sent, so the replay protection the nonce check exists for (CVE-2024-56128) holds.
 * Token authentication ({@code tokenauth}) and other extensions are refused.
 */
final class ScramServer implements SaslServer {
  private enum State {
    CLIENT_FIRST,
    CLIENT_FINAL,
    COMPLETE,
    FAILED
  }

  private final ScramMechanism mechanism;
  private final ScramFormatter formatter;
  private final Function<String, Optional<ScramCredential>> credentials;
  private State state = State.CLIENT_FIRST;
  private ClientFirstMessage clientFirst;
  private ServerFirstMessage serverFirst;
  private ScramCredential credential;
  private String username;

  /** {@code credentials} gives the stored credential of a user name, empty for an unknown one. */
  ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials) {
    this.mechanism = mechanism;
    this.credentials = credentials;
    try {
      this.formatter = new ScramFormatter(mechanism);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks " + mechanism.hashAlgorithm(), e);
    }
  }

  @Override
  public String getMechanismName() {
    return mechanism.mechanismName();
  }

  @Override
  public byte[] evaluateResponse(byte[] response) throws SaslException {
    try {
      return switch (state) {
        case CLIENT_FIRST -> first(response);
        case CLIENT_FINAL -> last(response);
        default -> throw new SaslException("Unexpected SCRAM message in state " + state);
      };
    } catch (SaslException | SaslAuthenticationException e) {
      state = State.FAILED;
      throw e;
    } catch (RuntimeException e) {
      // kafka-clients' message parsers throw unchecked exceptions for some malformed input (a bad
      // base64 proof, a bad user-name escape): every malformed message is one SASL error.
      state = State.FAILED;
      throw new SaslException("malformed SCRAM message: " + e.getClass().getSimpleName(), e);
    }
  }

  private byte[] first(byte[] response) throws SaslException {
    clientFirst = parsed(() -> new ClientFirstMessage(response), "first");
    if (!clientFirst.extensions().map().isEmpty()) {
      throw new SaslAuthenticationException(
          "Authentication failed: SCRAM extensions (delegation tokens) are not supported");
    }
    username = ScramFormatter.username(clientFirst.saslName());
    String authzid = clientFirst.authorizationId();
    if (!authzid.isEmpty() && !authzid.equals(username)) {
      throw new SaslAuthenticationException(
          "Authentication failed: Client requested an authorization id that is different from"
              + " username");
    }
    credential = credentials.apply(username).orElse(null);
    if (credential == null) {
      throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
    }
    if (credential.iterations() < mechanism.minIterations()) {
      throw new SaslException("stored iteration count below the mechanism's minimum");
    }
    serverFirst =
        new ServerFirstMessage(
            clientFirst.nonce(),
            formatter.secureRandomString(),
            credential.salt(),
            credential.iterations());
    state = State.CLIENT_FINAL;
    return serverFirst.toBytes();
  }

  private byte[] last(byte[] response) throws SaslException {
    ClientFinalMessage clientFinal = parsed(() -> new ClientFinalMessage(response), "final");
    String nonce = clientFinal.nonce();
    String expected = serverFirst.nonce();
    if (!nonce.equals(expected) && !nonce.equals(clientFirst.nonce() + expected)) {
      throw new SaslException("Invalid client nonce in the final client message.");
    }
    byte[] binding = clientFirst.gs2Header().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(binding, clientFinal.channelBinding())) {
      throw new SaslException("Invalid channel binding in the final client message.");
    }
    try {
      byte[] stored = credential.storedKey();
      byte[] signature = formatter.clientSignature(stored, clientFirst, serverFirst, clientFinal);
      byte[] presented = formatter.storedKey(signature, clientFinal.proof());
      if (presented.length != stored.length || !MessageDigest.isEqual(presented, stored)) {
        throw new SaslAuthenticationException("Authentication failed: Invalid user credentials");
      }
      byte[] serverSignature =
          formatter.serverSignature(credential.serverKey(), clientFirst, serverFirst, clientFinal);
      state = State.COMPLETE;
      return new ServerFinalMessage(null, serverSignature).toBytes();
    } catch (InvalidKeyException e) {
      throw new SaslException("the stored SCRAM key is not usable", e);
    }
  }

  /** A client message kafka-clients' parser accepts, or one SASL error. */
  private interface Parse<T> {
    T parse() throws SaslException;
  }

  /**
   * Parses a client message. kafka-clients' parsers put the whole message in their error, and a
   * misconfigured client may send its password where a SCRAM message belongs: the error here says
   * only which message was malformed.
   */
  private static <T> T parsed(Parse<T> p, String which) throws SaslException {
    try {
      return p.parse();
    } catch (SaslException | RuntimeException e) {
      throw new SaslException("Invalid SCRAM client " + which + " message format");
    }
  }

  @Override
  public boolean isComplete() {
    return state == State.COMPLETE;
  }

  @Override
  public String getAuthorizationID() {
    if (!isComplete()) {
      throw new IllegalStateException("the SCRAM exchange is not complete");
    }
    return username;
  }

  @Override
  public byte[] unwrap(byte[] incoming, int offset, int len) {
    throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
  }

  @Override
  public byte[] wrap(byte[] outgoing, int offset, int len) {
    throw new IllegalStateException("SCRAM supports neither integrity nor privacy");
  }

  @Override
  public Object getNegotiatedProperty(String propName) {
    if (!isComplete()) {
      throw new IllegalStateException("the SCRAM exchange is not complete");
    }
    return null;
  }

  @Override
  public void dispose() {
    credential = null;
  }
}
