package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kcat's balanced consumer ({@code -G}, librdkafka's consumer-group client) against the gateway: it
 * joins a group, consumes every partition, commits, and a second run resumes where the first one
 * stopped.
 */
class KcatGroupIT {
  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() throws Exception {
    Kcat.binary();
    k =
        new KafkaTestSupport(
            dir,
            KafkaTestSupport.FAST,
            b ->
                b.groups(
                    GroupSettings.classic(
                        Duration.ofSeconds(1), Duration.ofMinutes(5), Duration.ofMillis(200))));
  }

  @AfterEach
  void stop() {
    k.close();
  }

  private void produce(String topic, int partitions, int perPartition, int from) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      for (int part = 0; part < partitions; part++) {
        for (int i = from; i < from + perPartition; i++) {
          p.send(
              new ProducerRecord<>(topic, part, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
        }
      }
      p.flush();
    }
  }

  /** Runs {@code kcat -G} until it consumed {@code count} records; returns "partition:offset". */
  private Set<String> balanced(String group, String topic, int count) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "-b",
                k.bootstrap,
                "-G",
                group,
                "-c",
                Integer.toString(count),
                "-f",
                "%p:%o\\n",
                "-X",
                "auto.offset.reset=earliest",
                "-X",
                "session.timeout.ms=6000",
                topic));
    String out = new String(Kcat.kcatOk(args, null, 90), StandardCharsets.UTF_8);
    Set<String> got = new HashSet<>();
    for (String line : out.split("\n")) {
      if (!line.isBlank()) {
        assertThat(got.add(line)).as("record %s twice", line).isTrue();
      }
    }
    return got;
  }

  @Test
  void theBalancedConsumerConsumesEveryPartitionAndResumesFromItsCommits() throws Exception {
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic("logs", 3, (short) 1))).all().get();
    }
    produce("logs", 3, 10, 0);
    Set<String> first = balanced("kc", "logs", 30);
    Set<String> expected = new HashSet<>();
    for (int part = 0; part < 3; part++) {
      for (int o = 0; o < 10; o++) {
        expected.add(part + ":" + o);
      }
    }
    assertThat(first).isEqualTo(expected);
    // kcat committed on close: the group's offsets are the end of every partition.
    try (Admin admin = k.admin()) {
      Map<TopicPartition, OffsetAndMetadata> c =
          admin.listConsumerGroupOffsets("kc").partitionsToOffsetAndMetadata().get();
      for (int part = 0; part < 3; part++) {
        assertThat(c.get(new TopicPartition("logs", part)).offset()).isEqualTo(10);
      }
    }
    produce("logs", 3, 4, 10);
    Set<String> second = balanced("kc", "logs", 12);
    Set<String> expectedNext = new HashSet<>();
    for (int part = 0; part < 3; part++) {
      for (int o = 10; o < 14; o++) {
        expectedNext.add(part + ":" + o);
      }
    }
    assertThat(second).isEqualTo(expectedNext);
  }
}
