package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Role;
import dev.loam.tls.TestPki;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL on the Kafka listener with the real Java client: over TLS (SASL_SSL) each mechanism produces
 * and consumes with an API key; a wrong secret fails fast with {@link SaslAuthenticationException};
 * with a short session lifetime the client re-authenticates on its connection and keeps producing;
 * kcat authenticates with SCRAM-SHA-256.
 */
class SaslIT {
  @TempDir static Path pkiDir;
  static TestPki ca;
  static TestPki.Issued server;

  @TempDir Path dir;

  @BeforeAll
  static void pki() {
    ca = TestPki.create(pkiDir, "sasl");
    server = ca.issue("server");
  }

  static ApiKeySpec everything() {
    return ApiKeySpec.clusterWide(Role.PRODUCE, Role.CONSUME, Role.ADMIN);
  }

  @Test
  void eachMechanismProducesAndConsumesOverSaslSsl() throws Exception {
    try (KafkaTestSupport k =
        new KafkaTestSupport(dir, KafkaTestSupport.FAST, b -> b.tls(server.settings()))) {
      CreatedApiKey key = SaslClients.key(k.node, everything());
      for (String mechanism : SaslClients.MECHANISMS) {
        String topic = "sasl-" + mechanism.toLowerCase(java.util.Locale.ROOT);
        Map<String, Object> sasl =
            SaslClients.saslSsl(mechanism, key.key().id(), key.secret(), ca.caCertificate());
        try (KafkaProducer<byte[], byte[]> producer = k.producer(sasl)) {
          for (int i = 0; i < 5; i++) {
            producer
                .send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                .get(20, TimeUnit.SECONDS);
          }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = KafkaSslIT.consumer(k.bootstrap, sasl)) {
          consumer.assign(List.of(KafkaTestSupport.tp(topic, 0)));
          List<ConsumerRecord<byte[], byte[]>> got = KafkaTestSupport.pollFor(consumer, 5);
          assertThat(got)
              .as(mechanism)
              .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
              .containsExactly("v0", "v1", "v2", "v3", "v4");
        }
      }
    }
  }

  @Test
  void aWrongSecretFailsFastWithAnAuthenticationErrorNamingNoSecret() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key = SaslClients.key(k.node, everything());
      String wrong = dev.loam.tls.UsedSecrets.record("wrong-" + key.secret().substring(6));
      for (String mechanism : SaslClients.MECHANISMS) {
        for (String[] idAndSecret :
            new String[][] {{key.key().id(), wrong}, {"zzzzzzzzzzzzzzzz", key.secret()}}) {
          long start = System.nanoTime();
          try (Admin admin =
              KafkaSslIT.admin(
                  k.bootstrap, SaslClients.sasl(mechanism, idAndSecret[0], idAndSecret[1]))) {
            assertThatThrownBy(() -> admin.listTopics().names().get(20, TimeUnit.SECONDS))
                .as(mechanism)
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SaslAuthenticationException.class)
                .satisfies(
                    e ->
                        assertThat(e.getMessage())
                            .doesNotContain(wrong)
                            .doesNotContain(key.secret()));
          }
          // Refused at the first attempt: the client does not retry an authentication failure.
          assertThat(Duration.ofNanos(System.nanoTime() - start))
              .isLessThan(Duration.ofSeconds(10));
        }
      }
    }
  }

  @Test
  void theClientReauthenticatesOnItsConnectionBeforeTheSessionEnds() throws Exception {
    try (KafkaTestSupport k =
        new KafkaTestSupport(
            dir, KafkaTestSupport.FAST, b -> b.reauthInterval(Duration.ofSeconds(1)))) {
      CreatedApiKey key = SaslClients.key(k.node, everything());
      for (String mechanism : new String[] {"PLAIN", "SCRAM-SHA-512"}) {
        Map<String, Object> p = new HashMap<>(SaslClients.sasl(mechanism, key));
        try (KafkaProducer<byte[], byte[]> producer = k.producer(p)) {
          long end = System.nanoTime() + Duration.ofMillis(3500).toNanos();
          int sent = 0;
          while (System.nanoTime() < end) {
            producer
                .send(new ProducerRecord<>("reauth", ("r" + sent).getBytes(StandardCharsets.UTF_8)))
                .get(20, TimeUnit.SECONDS);
            sent++;
            Thread.sleep(100);
          }
          // Three session lifetimes: every send succeeded, so each renewal did.
          double reauths =
              producer.metrics().entrySet().stream()
                  .filter(e -> e.getKey().name().equals("successful-reauthentication-total"))
                  .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                  .sum();
          assertThat(reauths).as(mechanism).isGreaterThanOrEqualTo(1);
          assertThat(sent).isGreaterThan(10);
        }
      }
    }
  }

  @Test
  void kcatAuthenticatesWithScramSha256() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key = SaslClients.key(k.node, everything());
      // The credentials go in a configuration file (-F), not on the command line, where a failed
      // run's message would show them.
      Path good = kcatConfig("good.conf", key.key().id(), key.secret());
      List<String> auth =
          List.of(
              "-b",
              k.bootstrap,
              "-X",
              "security.protocol=SASL_PLAINTEXT",
              "-X",
              "sasl.mechanisms=SCRAM-SHA-256",
              "-F",
              good.toString());
      List<String> produce = new java.util.ArrayList<>(auth);
      produce.addAll(List.of("-P", "-t", "kc-sasl", "-p", "0"));
      Kcat.kcatOk(produce, "one\ntwo\n".getBytes(StandardCharsets.UTF_8), 60);
      List<String> consume = new java.util.ArrayList<>(auth);
      consume.addAll(List.of("-C", "-t", "kc-sasl", "-p", "0", "-o", "beginning", "-c", "2", "-e"));
      String out = new String(Kcat.kcatOk(consume, null, 60), StandardCharsets.UTF_8);
      assertThat(out).isEqualTo("one\ntwo\n");
      // A wrong password: kcat fails and the node's answer names no secret.
      List<String> bad = new java.util.ArrayList<>(auth);
      bad.set(
          bad.size() - 1,
          kcatConfig(
                  "bad.conf",
                  key.key().id(),
                  dev.loam.tls.UsedSecrets.record("kcat-wrong-" + System.nanoTime()))
              .toString());
      bad.addAll(List.of("-L", "-m", "10"));
      Kcat.Result r = Kcat.kcat(bad, null, 60);
      assertThat(r.exit()).isNotZero();
      assertThat(r.text()).containsIgnoringCase("authentication").doesNotContain(key.secret());
    }
  }

  private Path kcatConfig(String name, String user, String password) throws Exception {
    Path f = dir.resolve(name);
    java.nio.file.Files.writeString(
        f, "sasl.username=" + user + "\nsasl.password=" + password + "\n", StandardCharsets.UTF_8);
    return f;
  }
}
