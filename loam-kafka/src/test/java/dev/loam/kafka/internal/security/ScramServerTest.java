package dev.loam.kafka.internal.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ScramServer} against kafka-clients' own SCRAM client: the exchange succeeds with the
 * password and the client checks the server's signature; a wrong password, an unknown user, an
 * extension (delegation tokens), a foreign nonce or channel binding fail; librdkafka's repeated
 * client nonce (before 2.6.1) is accepted with a correct proof over the message as sent.
 */
class ScramServerTest {
  static final String PASSWORD = "correct-horse-battery-staple-0123456789abc";

  static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(ScramMechanism.class)
  void kafkasClientAuthenticatesAndVerifiesTheServer(ScramMechanism m) throws Exception {
    ScramServer server = ScramExchanges.server(m, ScramExchanges.credential(m, PASSWORD));
    SaslClient client = ScramExchanges.client(m, ScramExchanges.USER, PASSWORD, Map.of());
    byte[] first = client.evaluateChallenge(new byte[0]);
    byte[] serverFirst = server.evaluateResponse(first);
    byte[] last = client.evaluateChallenge(serverFirst);
    byte[] serverFinal = server.evaluateResponse(last);
    assertThat(server.isComplete()).isTrue();
    assertThat(server.getAuthorizationID()).isEqualTo(ScramExchanges.USER);
    // The client verifies the server's signature (it throws if the server lacked ServerKey).
    client.evaluateChallenge(serverFinal);
    assertThat(client.isComplete()).isTrue();
    assertThatThrownBy(() -> server.evaluateResponse(last)).isInstanceOf(SaslException.class);
  }

  @ParameterizedTest
  @EnumSource(ScramMechanism.class)
  void aWrongPasswordOrUnknownUserFails(ScramMechanism m) throws Exception {
    ScramCredential c = ScramExchanges.credential(m, PASSWORD);
    ScramServer server = ScramExchanges.server(m, c);
    SaslClient client = ScramExchanges.client(m, ScramExchanges.USER, "wrong", Map.of());
    byte[] last =
        client.evaluateChallenge(server.evaluateResponse(client.evaluateChallenge(new byte[0])));
    assertThatThrownBy(() -> server.evaluateResponse(last))
        .isInstanceOf(SaslAuthenticationException.class)
        .hasMessageNotContaining(PASSWORD);
    assertThat(server.isComplete()).isFalse();

    ScramServer other = ScramExchanges.server(m, c);
    SaslClient stranger = ScramExchanges.client(m, "zzzzzzzzzzzzzzzz", PASSWORD, Map.of());
    assertThatThrownBy(() -> other.evaluateResponse(stranger.evaluateChallenge(new byte[0])))
        .isInstanceOf(SaslAuthenticationException.class)
        .hasMessageContaining("Invalid user credentials");
  }

  @ParameterizedTest
  @EnumSource(ScramMechanism.class)
  void extensionsAreRefused(ScramMechanism m) throws Exception {
    ScramServer server = ScramExchanges.server(m, ScramExchanges.credential(m, PASSWORD));
    SaslClient client =
        ScramExchanges.client(m, ScramExchanges.USER, PASSWORD, Map.of("tokenauth", "true"));
    assertThatThrownBy(() -> server.evaluateResponse(client.evaluateChallenge(new byte[0])))
        .isInstanceOf(SaslAuthenticationException.class)
        .hasMessageContaining("extensions");
  }

  /**
   * A client-final message computed as librdkafka before 2.6.1 does: the nonce is the client nonce
   * followed by the server's whole nonce, and the proof is over that message.
   */
  static String librdkafkaFinal(
      ScramMechanism m, String clientFirstBare, String serverFirst, String nonce) throws Exception {
    var f = new org.apache.kafka.common.security.scram.internals.ScramFormatter(m);
    var sf =
        new org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage(
            serverFirst.getBytes(StandardCharsets.UTF_8));
    byte[] salted = f.saltedPassword(PASSWORD, sf.salt(), sf.iterations());
    String withoutProof = "c=biws,r=" + nonce;
    String auth = clientFirstBare + "," + serverFirst + "," + withoutProof;
    byte[] clientKey = f.clientKey(salted);
    byte[] signature = f.hmac(f.storedKey(clientKey), auth.getBytes(StandardCharsets.UTF_8));
    byte[] proof =
        org.apache.kafka.common.security.scram.internals.ScramFormatter.xor(clientKey, signature);
    return withoutProof + ",p=" + java.util.Base64.getEncoder().encodeToString(proof);
  }

  @ParameterizedTest
  @EnumSource(ScramMechanism.class)
  void librdkafkasRepeatedClientNonceIsAcceptedAndNoOtherNonce(ScramMechanism m) throws Exception {
    ScramCredential c = ScramExchanges.credential(m, PASSWORD);
    String clientNonce = "fqLxIJdlan~0rLAMtK|P;1Og=wnne]CD";
    String bare = "n=" + ScramExchanges.USER + ",r=" + clientNonce;
    for (String form : new String[] {"exact", "repeated", "client-only", "foreign"}) {
      ScramServer server = ScramExchanges.server(m, c);
      String serverFirst =
          s(server.evaluateResponse(("n,," + bare).getBytes(StandardCharsets.UTF_8)));
      String nonce = serverFirst.substring(2, serverFirst.indexOf(','));
      String sent =
          switch (form) {
            case "exact" -> nonce;
            case "repeated" -> clientNonce + nonce;
            case "client-only" -> clientNonce;
            default -> "x" + nonce;
          };
      byte[] last = librdkafkaFinal(m, bare, serverFirst, sent).getBytes(StandardCharsets.UTF_8);
      if (form.equals("exact") || form.equals("repeated")) {
        assertThat(s(server.evaluateResponse(last))).as(form).startsWith("v=");
        assertThat(server.isComplete()).isTrue();
      } else {
        assertThatThrownBy(() -> server.evaluateResponse(last))
            .as(form)
            .isInstanceOf(SaslException.class)
            .hasMessageContaining("nonce");
        assertThat(server.isComplete()).isFalse();
      }
    }
  }
}
