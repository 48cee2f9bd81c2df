package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.LoamNode;
import dev.loam.kms.Pkcs12KeyManagementService;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka Java client against a gateway whose namespace is encrypted (docs/security.md, "Data at
 * rest"): produced records are sealed in the WAL (no object file holds them in plaintext), consumed
 * byte for byte, and after the namespace is shredded the consumer gets nothing and the producer's
 * sends fail.
 */
class EncryptedTopicIT {
  static final String MARK = "kafka-secret-";

  @TempDir Path dir;
  Pkcs12KeyManagementService kms;
  LoamNode node;
  KafkaGateway gateway;
  String bootstrap;

  @BeforeEach
  void start() {
    kms = new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "pw".toCharArray());
    node =
        LoamNode.builder()
            .nodeId("n1")
            .dataDir(dir.resolve("node"))
            .settings(KafkaTestSupport.FAST.withTailCacheBytes(0))
            .keyManagement(kms)
            .start();
    node.log().createEncryptedNamespace("vault").join();
    gateway =
        KafkaGateway.start(
            node, KafkaGatewaySettings.builder().port(0).ioThreads(2).namespace("vault").build());
    bootstrap = "127.0.0.1:" + gateway.port();
  }

  @AfterEach
  void stop() {
    gateway.close();
    node.close();
    kms.close();
  }

  KafkaProducer<byte[], byte[]> producer(int deliveryTimeoutMs) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
            ByteArraySerializer.class,
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            deliveryTimeoutMs,
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            Math.min(deliveryTimeoutMs, 10_000),
            ProducerConfig.LINGER_MS_CONFIG,
            0,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            10_000));
  }

  KafkaConsumer<byte[], byte[]> consumer() {
    return new KafkaConsumer<>(
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class,
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
            ByteArrayDeserializer.class,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
            200,
            ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            15_000));
  }

  @Test
  void recordsAreSealedReadBackAndUnreadableAfterTheShred() throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get();
    }
    List<byte[]> sent = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> p = producer(20_000)) {
      List<Future<RecordMetadata>> fs = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        byte[] v = (MARK + i).getBytes(StandardCharsets.UTF_8);
        sent.add(v);
        fs.add(p.send(new ProducerRecord<>("orders", 0, null, v)));
      }
      for (Future<RecordMetadata> f : fs) {
        f.get();
      }
    }
    TopicPartition tp = new TopicPartition("orders", 0);
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<byte[], byte[]>> got = KafkaTestSupport.pollFor(c, 20);
      assertThat(got).hasSize(20);
      for (int i = 0; i < 20; i++) {
        assertThat(got.get(i).value()).isEqualTo(sent.get(i));
        assertThat(got.get(i).offset()).isEqualTo(i);
      }
    }
    try (Stream<Path> files = Files.walk(dir.resolve("node"))) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1))
            .as("stored file %s", f)
            .doesNotContain(MARK);
      }
    }

    node.log().destroyNamespaceKeys("vault").join();
    try (KafkaConsumer<byte[], byte[]> c = consumer()) {
      c.assign(List.of(tp));
      c.seek(tp, 0);
      List<ConsumerRecord<byte[], byte[]>> none = new ArrayList<>();
      long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (System.nanoTime() < until) {
        c.poll(Duration.ofMillis(200)).forEach(none::add);
      }
      assertThat(none).isEmpty();
    }
    try (KafkaProducer<byte[], byte[]> p = producer(3_000)) {
      Future<RecordMetadata> f =
          p.send(new ProducerRecord<>("orders", 0, null, "late".getBytes(StandardCharsets.UTF_8)));
      assertThatThrownBy(f::get).isInstanceOf(java.util.concurrent.ExecutionException.class);
    }
  }
}
