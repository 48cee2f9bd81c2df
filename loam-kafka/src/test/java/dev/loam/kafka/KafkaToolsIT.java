package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's own consumer-group command ({@code kafka-consumer-groups.sh}, the kafka-tools artifact's
 * ConsumerGroupCommand, run in its own JVM from {@code target/kafka-tools-lib}) against the
 * gateway: it lists the group, describes its offsets and lag and its members, and resets its
 * offsets to the earliest.
 */
class KafkaToolsIT {
  static final String TOPIC = "clicks";

  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() throws Exception {
    k =
        new KafkaTestSupport(
            dir,
            KafkaTestSupport.FAST,
            b ->
                b.groups(
                    GroupSettings.classic(
                        Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofMillis(100))));
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1))).all().get();
    }
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      for (int part = 0; part < 3; part++) {
        for (int i = 0; i < 10; i++) {
          p.send(
              new ProducerRecord<>(TOPIC, part, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
        }
      }
      p.flush();
    }
  }

  @AfterEach
  void stop() {
    k.close();
  }

  /**
   * Runs ConsumerGroupCommand with {@code args}; returns its stdout, failing on a non-zero exit.
   */
  private String tool(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-cp");
    cmd.add(Path.of("target", "kafka-tools-lib").toAbsolutePath() + "/*");
    cmd.add("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand");
    cmd.add("--bootstrap-server");
    cmd.add(k.bootstrap);
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "tool", ".out");
    Process p =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("ConsumerGroupCommand did not finish: " + cmd);
    }
    String text = Files.readString(out);
    assertThat(p.exitValue()).as("exit of %s:\n%s", cmd, text).isZero();
    return text;
  }

  private KafkaConsumer<byte[], byte[]> consumer(String group) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "tool-test");
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 3_000);
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    return new KafkaConsumer<>(p);
  }

  /** The describe table's rows for the topic: partition → the row's columns. */
  private static Map<Integer, List<String>> rows(String describe) {
    Map<Integer, List<String>> out = new HashMap<>();
    for (String line : describe.split("\n")) {
      List<String> cols = List.of(line.trim().split("\\s+"));
      if (cols.size() >= 6 && cols.get(1).equals(TOPIC)) {
        out.put(Integer.parseInt(cols.get(2)), cols);
      }
    }
    return out;
  }

  @Test
  void listsDescribesWithLagAndResetsToTheEarliest() throws Exception {
    // The group commits 4, 5 and 6 on the three partitions, then stays as a live member.
    try (KafkaConsumer<byte[], byte[]> c = consumer("reports")) {
      c.subscribe(List.of(TOPIC));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (c.assignment().size() < 3 && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(100));
      }
      assertThat(c.assignment()).hasSize(3);
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      for (int part = 0; part < 3; part++) {
        offsets.put(new TopicPartition(TOPIC, part), new OffsetAndMetadata(4 + part));
      }
      c.commitSync(offsets);

      assertThat(tool("--list")).contains("reports");
      String describe = tool("--describe", "--group", "reports");
      Map<Integer, List<String>> r = rows(describe);
      assertThat(r).as(describe).containsOnlyKeys(0, 1, 2);
      for (int part = 0; part < 3; part++) {
        // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID
        List<String> row = r.get(part);
        assertThat(row.get(3)).as("current offset, partition %d", part).isEqualTo("" + (4 + part));
        assertThat(row.get(4)).as("log end offset").isEqualTo("10");
        assertThat(row.get(5)).as("lag").isEqualTo("" + (6 - part));
        assertThat(row.get(6)).as("consumer id").startsWith("tool-test-");
      }
      String members = tool("--describe", "--group", "reports", "--members");
      assertThat(members).contains("tool-test").contains("/unknown");
      c.unsubscribe();
    }

    // With the group empty, reset to the earliest: every committed offset becomes 0.
    String reset =
        tool(
            "--reset-offsets",
            "--group",
            "reports",
            "--topic",
            TOPIC,
            "--to-earliest",
            "--execute");
    // GROUP TOPIC PARTITION NEW-OFFSET
    assertThat(
            reset
                .lines()
                .map(String::trim)
                .filter(l -> l.matches("reports\\s+clicks\\s+[012]\\s+0")))
        .as(reset)
        .hasSize(3);
    try (Admin admin = k.admin()) {
      Map<TopicPartition, OffsetAndMetadata> after =
          admin.listConsumerGroupOffsets("reports").partitionsToOffsetAndMetadata().get();
      assertThat(after).hasSize(3);
      after.values().forEach(o -> assertThat(o.offset()).isZero());
    }
    String again = tool("--describe", "--group", "reports");
    rows(again).values().forEach(row -> assertThat(row.get(5)).as("lag").isEqualTo("10"));
  }
}
