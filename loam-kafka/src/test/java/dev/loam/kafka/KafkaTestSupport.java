package dev.loam.kafka;

import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A node on a temporary data directory with a Kafka gateway on an ephemeral loopback port, and real
 * Kafka clients pointed at it.
 */
final class KafkaTestSupport implements AutoCloseable {
  static final NodeSettings FAST = NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  final LoamNode node;
  final KafkaGateway gateway;
  final String bootstrap;

  KafkaTestSupport(Path dir) {
    this(dir, FAST, b -> b);
  }

  KafkaTestSupport(
      Path dir, NodeSettings settings, UnaryOperator<KafkaGatewaySettings.Builder> tweak) {
    node = LoamNode.builder().nodeId("n1").dataDir(dir).settings(settings).start();
    gateway =
        KafkaGateway.start(
            node, tweak.apply(KafkaGatewaySettings.builder().port(0).ioThreads(2)).build());
    bootstrap = "127.0.0.1:" + gateway.port();
  }

  Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    return Admin.create(p);
  }

  KafkaProducer<byte[], byte[]> producer(Map<String, Object> overrides) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    p.putAll(overrides);
    return new KafkaProducer<>(p);
  }

  KafkaConsumer<byte[], byte[]> consumer() {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
    return new KafkaConsumer<>(p);
  }

  /** Polls {@code consumer} until {@code count} records arrived (or 20 s passed). */
  static List<ConsumerRecord<byte[], byte[]>> pollFor(
      KafkaConsumer<byte[], byte[]> consumer, int count) {
    List<ConsumerRecord<byte[], byte[]>> out = new java.util.ArrayList<>();
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (out.size() < count && System.nanoTime() < deadline) {
      consumer.poll(Duration.ofMillis(200)).forEach(out::add);
    }
    return out;
  }

  static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  @Override
  public void close() {
    gateway.close();
    node.close();
  }
}
