package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Kafka gateway on a cluster of three {@code loam node} processes, with the unmodified Kafka
 * Java client: records produced through one node are consumed through another, and an idempotent
 * producer (Kafka's defaults: idempotence on, acks=all) carries on through the survivors when a
 * node is killed with SIGKILL mid-run, with no acknowledged record lost and no record duplicated.
 */
class KafkaProcessIT {
  private static final long LIVENESS_MS = 3_000;
  private static final int PARTITIONS = 6;
  private static final String TOPIC = "events";

  private ProcessCluster cluster;

  @BeforeEach
  void start() throws Exception {
    cluster =
        ProcessCluster.builder()
            .nodes(3)
            .kafka()
            .logDir(Path.of("target", "process-cluster", getClass().getSimpleName()))
            .readyTimeout(Duration.ofSeconds(120))
            .nodeArgs("--flush-ms", "10", "--liveness-timeout-ms", Long.toString(LIVENESS_MS))
            .start();
  }

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private String bootstrap(int... nodes) {
    List<String> out = new ArrayList<>();
    for (int i : nodes) {
      out.add(cluster.kafkaAddress(i));
    }
    return String.join(",", out);
  }

  @Test
  void anIdempotentProducerLosesAndDuplicatesNothingWhenANodeIsKilled() throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(0, 1, 2),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                60_000))) {
      admin
          .createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
      // Every node serves it: the cluster view is the same through each.
      for (int i = 0; i < 3; i++) {
        assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
      }
    }

    int total = 6_000;
    int killAt = 2_000;
    Map<String, Long> acked = new ConcurrentHashMap<>();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Exception> firstFailure = new AtomicReference<>();
    Properties p = new Properties();
    // Through node 1 and node 0 (the one killed): the client must move on to node 1 by itself.
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(0, 1));
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "kafka-process-it");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < total; i++) {
        String v = "record-" + i;
        byte[] key = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
        producer.send(
            new ProducerRecord<>(TOPIC, key, v.getBytes(StandardCharsets.UTF_8)),
            (md, e) -> {
              if (e == null) {
                acked.put(v, md.offset());
              } else {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, e);
              }
            });
        if (i == killAt) {
          // No flush first: batches to node 0 are in flight (some committed, some not, some with
          // an answer lost), and the client retries them through the survivors.
          cluster.kill9(0);
        }
        if (i % 50 == 0) {
          Thread.sleep(20); // spread the run over a few seconds, so the kill lands mid-stream
        }
      }
      producer.flush();
    }
    assertThat(firstFailure.get()).as("no send failed").isNull();
    assertThat(failed.get()).isZero();
    assertThat(acked).hasSize(total);

    // Read everything back through node 2, which no producer talked to.
    Map<String, Integer> seen = new HashMap<>();
    List<String> duplicates = new ArrayList<>();
    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(2));
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "kafka-process-it-reader");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps = new ArrayList<>();
      for (int i = 0; i < PARTITIONS; i++) {
        tps.add(new TopicPartition(TOPIC, i));
      }
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      Set<TopicPartition> done = new HashSet<>();
      while (done.size() < tps.size() && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          String v = new String(r.value(), StandardCharsets.UTF_8);
          if (seen.merge(v, 1, Integer::sum) > 1) {
            duplicates.add(v + "@" + r.partition() + "/" + r.offset());
          }
          // The key the producer sent routes the record: Kafka's murmur2 partitioner agrees.
          assertThat(new String(r.key(), StandardCharsets.UTF_8))
              .isEqualTo(v.substring("record-".length()));
        }
        for (TopicPartition tp : tps) {
          if (consumer.position(tp) >= end.get(tp)) {
            done.add(tp);
          }
        }
      }
      assertThat(done).as("every partition read to its end").hasSize(PARTITIONS);
    }
    assertThat(duplicates).as("duplicated records").isEmpty();
    List<String> lost = new ArrayList<>();
    for (String v : acked.keySet()) {
      if (!seen.containsKey(v)) {
        lost.add(v);
      }
    }
    assertThat(lost).as("acknowledged records lost").isEmpty();
    assertThat(seen).hasSize(total);
  }
}
