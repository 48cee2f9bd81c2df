package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Role;
import dev.loam.api.StreamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authorization on the Kafka listener with the real Java client: a namespace-scoped key sees and
 * writes its own namespace only; roles decide Produce, Fetch and topic admin; a revoked key's open
 * connection is refused at its next request and the client's reconnection fails authentication.
 */
class KafkaAuthorizationIT {
  @TempDir Path dir;

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aNamespaceScopedKeySeesAndWritesOnlyItsNamespace() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      var log = k.node.log();
      for (String ns : List.of("team-a", "team-b")) {
        log.createNamespace(ns).get(20, TimeUnit.SECONDS);
      }
      log.createStream("team-a", "a-events", StreamSpec.standard(1)).get(20, TimeUnit.SECONDS);
      log.createStream("team-b", "b-events", StreamSpec.standard(1)).get(20, TimeUnit.SECONDS);
      log.createStream("default", "listener-events", StreamSpec.standard(1))
          .get(20, TimeUnit.SECONDS);
      CreatedApiKey a =
          SaslClients.key(k.node, ApiKeySpec.inNamespace("team-a", Role.PRODUCE, Role.CONSUME));
      CreatedApiKey cluster =
          SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.PRODUCE, Role.CONSUME, Role.ADMIN));

      try (Admin admin = KafkaSslIT.admin(k.bootstrap, SaslClients.sasl("SCRAM-SHA-256", a))) {
        assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS))
            .containsExactly("a-events");
      }
      // A cluster-wide key acts in the listener's namespace.
      try (Admin admin = KafkaSslIT.admin(k.bootstrap, SaslClients.sasl("PLAIN", cluster))) {
        assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS))
            .containsExactly("listener-events");
      }
      Map<String, Object> p = new HashMap<>(SaslClients.sasl("SCRAM-SHA-512", a));
      p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
      try (KafkaProducer<byte[], byte[]> producer = k.producer(p)) {
        producer.send(new ProducerRecord<>("a-events", b("mine"))).get(20, TimeUnit.SECONDS);
        // b-events is not in team-a, and the key may not create it there.
        assertThatThrownBy(
                () ->
                    producer
                        .send(new ProducerRecord<>("b-events", b("theirs")))
                        .get(20, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
      assertThat(log.describeStream("team-a", "a-events").get().partitions().get(0).highWatermark())
          .isEqualTo(1);
      assertThat(log.describeStream("team-b", "b-events").get().partitions().get(0).highWatermark())
          .isZero();
      assertThat(log.listStreams("team-a").get()).hasSize(1);
    }
  }

  @Test
  void rolesDecideProduceConsumeAndTopicAdmin() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey admin =
          SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.ADMIN, Role.PRODUCE));
      CreatedApiKey reader = SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.CONSUME));
      try (Admin a = KafkaSslIT.admin(k.bootstrap, SaslClients.sasl("SCRAM-SHA-256", admin))) {
        a.createTopics(List.of(new NewTopic("roles", 1, (short) 1)))
            .all()
            .get(20, TimeUnit.SECONDS);
      }
      try (KafkaProducer<byte[], byte[]> producer =
          k.producer(SaslClients.sasl("SCRAM-SHA-256", admin))) {
        producer.send(new ProducerRecord<>("roles", b("x"))).get(20, TimeUnit.SECONDS);
      }
      // The consume-only key reads, but neither produces (idempotent or not) nor administers.
      try (KafkaConsumer<byte[], byte[]> c =
          KafkaSslIT.consumer(k.bootstrap, SaslClients.sasl("SCRAM-SHA-256", reader))) {
        c.assign(List.of(KafkaTestSupport.tp("roles", 0)));
        List<ConsumerRecord<byte[], byte[]>> got = KafkaTestSupport.pollFor(c, 1);
        assertThat(got).hasSize(1);
      }
      for (boolean idempotent : new boolean[] {true, false}) {
        Map<String, Object> p = new HashMap<>(SaslClients.sasl("PLAIN", reader));
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        if (!idempotent) {
          p.put(ProducerConfig.ACKS_CONFIG, "1");
        }
        try (KafkaProducer<byte[], byte[]> producer = k.producer(p)) {
          assertThatThrownBy(
                  () ->
                      producer
                          .send(new ProducerRecord<>("roles", b("no")))
                          .get(20, TimeUnit.SECONDS))
              .as("idempotent=%s", idempotent)
              .satisfiesAnyOf(
                  e -> assertThat(e).hasCauseInstanceOf(AuthorizationException.class),
                  e -> assertThat(e).isInstanceOf(AuthorizationException.class));
        }
      }
      try (Admin a = KafkaSslIT.admin(k.bootstrap, SaslClients.sasl("PLAIN", reader))) {
        assertThatThrownBy(() -> a.deleteTopics(List.of("roles")).all().get(20, TimeUnit.SECONDS))
            .hasCauseInstanceOf(TopicAuthorizationException.class);
      }
      assertThat(
              k.node
                  .log()
                  .describeStream("default", "roles")
                  .get()
                  .partitions()
                  .get(0)
                  .highWatermark())
          .isEqualTo(1);
    }
  }

  @Test
  void aRevokedKeyIsRefusedOnItsOpenConnectionAndOnReconnecting() throws Exception {
    try (KafkaTestSupport k = new KafkaTestSupport(dir)) {
      CreatedApiKey key =
          SaslClients.key(k.node, ApiKeySpec.clusterWide(Role.PRODUCE, Role.CONSUME, Role.ADMIN));
      Map<String, Object> p = new HashMap<>(SaslClients.sasl("SCRAM-SHA-256", key));
      p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10_000);
      p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
      try (KafkaProducer<byte[], byte[]> producer = k.producer(p);
          Admin admin = KafkaSslIT.admin(k.bootstrap, SaslClients.sasl("PLAIN", key))) {
        producer.send(new ProducerRecord<>("revoked", b("before"))).get(20, TimeUnit.SECONDS);
        assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS)).contains("revoked");
        k.node.log().revokeApiKey(key.key().id()).get(20, TimeUnit.SECONDS);
        long start = System.nanoTime();
        // Both connections are open and authenticated; the next request of each is refused and
        // the reconnection fails authentication.
        assertThatThrownBy(() -> admin.listTopics().names().get(20, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(SaslAuthenticationException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThatThrownBy(
                () ->
                    producer
                        .send(new ProducerRecord<>("revoked", b("after")))
                        .get(20, TimeUnit.SECONDS))
            .isNotNull();
      }
      assertThat(
              k.node
                  .log()
                  .describeStream("default", "revoked")
                  .get()
                  .partitions()
                  .get(0)
                  .highWatermark())
          .isEqualTo(1);
    }
  }
}
