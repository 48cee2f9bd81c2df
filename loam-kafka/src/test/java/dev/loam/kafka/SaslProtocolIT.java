package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Role;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SASL exchange request by request, with exact frames: what an unauthenticated connection may
 * send once keys exist, the handshake's answers, and a failed exchange's answer and close.
 */
class SaslProtocolIT {
  @TempDir Path dir;

  static SaslHandshakeRequest handshake(String mechanism) {
    return new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism))
        .build((short) 1);
  }

  static SaslAuthenticateRequest authenticate(byte[] token, short version) {
    return new SaslAuthenticateRequest.Builder(
            new SaslAuthenticateRequestData().setAuthBytes(token))
        .build(version);
  }

  static byte[] plain(String id, String secret) {
    return ("\0" + id + "\0" + secret).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void withoutKeysTheListenerIsOpenAndOffersSasl() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir);
        RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      ApiVersionsResponse v = c.call(new ApiVersionsRequest.Builder().build((short) 3));
      assertThat(v.apiVersion(ApiKeys.SASL_HANDSHAKE.id).maxVersion()).isEqualTo((short) 1);
      assertThat(v.apiVersion(ApiKeys.SASL_AUTHENTICATE.id).maxVersion()).isEqualTo((short) 2);
      MetadataResponse m = c.call(MetadataRequest.Builder.allTopics().build((short) 12));
      assertThat(m.topicMetadata()).isEmpty();
    }
  }

  @Test
  void onceAKeyExistsOnlyApiVersionsAndSaslPassAnUnauthenticatedConnection() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      // Opened while no key exists, closed at its first request after one does.
      try (RawKafkaClient early = new RawKafkaClient(k.gateway.port())) {
        early.call(MetadataRequest.Builder.allTopics().build((short) 12));
        SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
        early.send(MetadataRequest.Builder.allTopics().build((short) 12));
        assertThat(early.closedByServer()).isTrue();
      }
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        ApiVersionsResponse v = c.call(new ApiVersionsRequest.Builder().build((short) 3));
        assertThat(v.data().errorCode()).isZero();
        c.send(MetadataRequest.Builder.allTopics().build((short) 12));
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void theHandshakeRefusesAnUnofferedMechanismAndCloses() throws Exception {
    try (KafkaTestSupport k =
            new KafkaTestSupport(
                dir,
                KafkaTestSupport.FAST,
                b -> b.saslMechanisms(java.util.Set.of("SCRAM-SHA-256")));
        RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      SaslHandshakeResponse h = c.call(handshake("PLAIN"));
      assertThat(h.error()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM);
      assertThat(h.data().mechanisms()).containsExactly("SCRAM-SHA-256");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void authenticateWithoutAHandshakeIsAnIllegalState() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir);
        RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      SaslAuthenticateResponse r = c.call(authenticate(plain("a", "b"), (short) 2));
      assertThat(r.error()).isEqualTo(Errors.ILLEGAL_SASL_STATE);
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @Test
  void plainSucceedsWithTheKeyAndFailsWithoutEchoingTheSecret() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      for (short version = 0; version <= 2; version++) {
        try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
          assertThat(c.<SaslHandshakeResponse>call(handshake("PLAIN")).error())
              .isEqualTo(Errors.NONE);
          SaslAuthenticateResponse r =
              c.call(authenticate(plain(key.key().id(), key.secret()), version));
          assertThat(r.error()).isEqualTo(Errors.NONE);
          assertThat(r.sessionLifetimeMs()).isZero();
          MetadataResponse m = c.call(MetadataRequest.Builder.allTopics().build((short) 12));
          assertThat(m.errors()).isEmpty();
        }
      }
      String wrong = dev.loam.tls.UsedSecrets.record("plain-wrong-" + System.nanoTime());
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(handshake("PLAIN"));
        SaslAuthenticateResponse r = c.call(authenticate(plain(key.key().id(), wrong), (short) 2));
        assertThat(r.error()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(r.errorMessage()).isNotBlank().doesNotContain(wrong);
        assertThat(c.closedByServer()).isTrue();
      }
      // A garbled token fails the same way.
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(handshake("SCRAM-SHA-256"));
        SaslAuthenticateResponse r = c.call(authenticate(plain(key.key().id(), wrong), (short) 1));
        assertThat(r.error()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(r.errorMessage()).doesNotContain(wrong);
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void aVersion0HandshakeExchangesBareTokens() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        SaslHandshakeResponse h =
            c.call(
                new SaslHandshakeRequest.Builder(
                        new SaslHandshakeRequestData().setMechanism("PLAIN"))
                    .build((short) 0));
        assertThat(h.error()).isEqualTo(Errors.NONE);
        c.sendFrame(plain(key.key().id(), key.secret()));
        assertThat(c.readFrame().remaining()).isZero();
        MetadataResponse m = c.call(MetadataRequest.Builder.allTopics().build((short) 12));
        assertThat(m.errors()).isEmpty();
      }
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(
            new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism("PLAIN"))
                .build((short) 0));
        c.sendFrame(plain(key.key().id(), "nope"));
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void aRevokedKeysOpenConnectionIsClosedAtItsNextRequest() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(handshake("PLAIN"));
        SaslAuthenticateResponse r =
            c.call(authenticate(plain(key.key().id(), key.secret()), (short) 2));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(
                c.<MetadataResponse>call(MetadataRequest.Builder.allTopics().build((short) 12))
                    .errors())
            .isEmpty();
        k.node.log().revokeApiKey(key.key().id()).get(20, java.util.concurrent.TimeUnit.SECONDS);
        c.send(MetadataRequest.Builder.allTopics().build((short) 12));
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void reauthenticationKeepsTheKeyAndAnExpiredSessionCloses() throws Exception {
    try (KafkaTestSupport k =
        new KafkaTestSupport(
            dir, KafkaTestSupport.FAST, b -> b.reauthInterval(java.time.Duration.ofSeconds(1)))) {
      CreatedApiKey a = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      CreatedApiKey other = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(handshake("PLAIN"));
        SaslAuthenticateResponse r =
            c.call(authenticate(plain(a.key().id(), a.secret()), (short) 2));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.sessionLifetimeMs()).isEqualTo(1000);
        // Re-authenticating with the same key renews the session; another key is refused.
        c.call(handshake("PLAIN"));
        assertThat(
                c.<SaslAuthenticateResponse>call(
                        authenticate(plain(a.key().id(), a.secret()), (short) 2))
                    .error())
            .isEqualTo(Errors.NONE);
        c.call(handshake("PLAIN"));
        SaslAuthenticateResponse switched =
            c.call(authenticate(plain(other.key().id(), other.secret()), (short) 2));
        assertThat(switched.error()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(switched.errorMessage()).contains("re-authentication");
        assertThat(c.closedByServer()).isTrue();
      }
      try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
        c.call(handshake("PLAIN"));
        c.call(authenticate(plain(a.key().id(), a.secret()), (short) 2));
        assertThat(
                c.<MetadataResponse>call(MetadataRequest.Builder.allTopics().build((short) 12))
                    .errors())
            .isEmpty();
        Thread.sleep(1200);
        c.send(MetadataRequest.Builder.allTopics().build((short) 12));
        assertThat(c.closedByServer()).isTrue();
      }
    }
  }

  @Test
  void aListenerWithoutAuthenticationServesNoSasl() throws Exception {
    try (KafkaTestSupport k =
            new KafkaTestSupport(
                dir,
                KafkaTestSupport.FAST,
                b -> b.authentication(KafkaGatewaySettings.Authentication.NONE));
        RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      ApiVersionsResponse v = c.call(new ApiVersionsRequest.Builder().build((short) 3));
      assertThat(v.apiVersion(ApiKeys.SASL_HANDSHAKE.id)).isNull();
      SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      MetadataResponse m = c.call(MetadataRequest.Builder.allTopics().build((short) 12));
      assertThat(m.errors()).isEmpty();
    }
  }
}
