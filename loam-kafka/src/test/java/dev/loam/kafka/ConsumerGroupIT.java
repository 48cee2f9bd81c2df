package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Consumer groups with the Kafka Java client's classic protocol (docs/reference/kafka.md "Consumer
 * groups"): three consumers share six partitions with the range and the cooperative-sticky
 * assignors, each partition owned by exactly one member; a member that leaves and a static member
 * that dies (its session times out) hand their partitions over with nothing left unconsumed; the
 * committed offsets are where a restarted consumer resumes.
 */
class ConsumerGroupIT {
  static final String TOPIC = "events";
  static final int PARTITIONS = 6;

  @TempDir Path dir;
  KafkaTestSupport k;
  final Map<TopicPartition, Set<Long>> received = new ConcurrentHashMap<>();
  final List<GroupMember> members = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    k =
        new KafkaTestSupport(
            dir,
            KafkaTestSupport.FAST,
            b ->
                b.groups(
                    GroupSettings.classic(
                        Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofMillis(300))));
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (GroupMember m : members) {
      m.close();
    }
    k.close();
  }

  private GroupMember member(String group, String name, Class<?> assignor, String instanceId) {
    Map<String, Object> o = new HashMap<>();
    o.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
    if (instanceId != null) {
      o.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
    }
    GroupMember m = new GroupMember(k.bootstrap, group, TOPIC, name, o, received);
    members.add(m);
    return m;
  }

  /** Produces {@code n} records to every partition; returns the end offsets. */
  private Map<TopicPartition, Long> produce(int n) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      for (int part = 0; part < PARTITIONS; part++) {
        for (int i = 0; i < n; i++) {
          p.send(
              new ProducerRecord<>(TOPIC, part, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
        }
      }
      p.flush();
    }
    Map<TopicPartition, Long> end = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      List<TopicPartition> all = new ArrayList<>();
      for (int part = 0; part < PARTITIONS; part++) {
        all.add(new TopicPartition(TOPIC, part));
      }
      end.putAll(c.endOffsets(all));
    }
    return end;
  }

  private static void eventually(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(50);
    }
  }

  /** The live members' assignments are disjoint and cover every partition. */
  private boolean exactlyOnce(List<GroupMember> live) {
    Set<TopicPartition> seen = new HashSet<>();
    for (GroupMember m : live) {
      for (TopicPartition tp : m.assignment) {
        if (!seen.add(tp)) {
          return false;
        }
      }
    }
    return seen.size() == PARTITIONS;
  }

  private boolean allReceived(Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      Set<Long> got = received.getOrDefault(e.getKey(), Set.of());
      for (long o = 0; o < e.getValue(); o++) {
        if (!got.contains(o)) {
          return false;
        }
      }
    }
    return true;
  }

  private Map<TopicPartition, OffsetAndMetadata> committed(String group) throws Exception {
    try (Admin admin = k.admin()) {
      return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    }
  }

  @ParameterizedTest
  @ValueSource(classes = {RangeAssignor.class, CooperativeStickyAssignor.class})
  void threeMembersShareSixPartitionsAndHandThemOverWhenOneLeavesOrDies(Class<?> assignor)
      throws Exception {
    String group = "g-" + assignor.getSimpleName();
    Map<TopicPartition, Long> end = produce(20);
    GroupMember a = member(group, "a", assignor, null);
    GroupMember b = member(group, "b", assignor, null);
    GroupMember c = member(group, "c", assignor, "static-c");
    eventually(
        "three members, two partitions each",
        () ->
            exactlyOnce(List.of(a, b, c))
                && a.assignment.size() == 2
                && b.assignment.size() == 2
                && c.assignment.size() == 2);
    eventually("every record consumed", () -> allReceived(end));

    // b leaves (LeaveGroup): a and c take its partitions over.
    b.close();
    eventually("a and c own all six", () -> exactlyOnce(List.of(a, c)));
    Map<TopicPartition, Long> end2 = produce(10);
    eventually("records after the leave consumed", () -> allReceived(end2));

    // Handing partitions over gracefully (commit on revoke) delivers nothing twice.
    for (GroupMember m : members) {
      assertThat(m.duplicates()).as("records %s received twice", m.name).isEmpty();
    }

    // c, a static member, dies: no LeaveGroup; its session (3 s) times out and a gets everything.
    c.die();
    eventually("a owns all six after c's session timed out", () -> exactlyOnce(List.of(a)));
    Map<TopicPartition, Long> end3 = produce(10);
    eventually("records after the death consumed", () -> allReceived(end3));
    eventually(
        "every offset committed",
        () -> {
          try {
            Map<TopicPartition, OffsetAndMetadata> got = committed(group);
            return end3.entrySet().stream()
                .allMatch(
                    e ->
                        got.get(e.getKey()) != null
                            && got.get(e.getKey()).offset() == e.getValue());
          } catch (Exception e) {
            return false;
          }
        });
    for (GroupMember m : members) {
      assertThat(m.failure()).as("member %s", m.name).isNull();
    }
    a.close();

    // A consumer restarting in the group resumes at the committed offsets.
    Map<TopicPartition, Long> end4 = produce(3);
    try (KafkaConsumer<byte[], byte[]> again = groupConsumer(group, assignor)) {
      again.subscribe(List.of(TOPIC));
      Map<Integer, Long> first = new HashMap<>();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (first.size() < PARTITIONS && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : again.poll(Duration.ofMillis(200))) {
          first.putIfAbsent(r.partition(), r.offset());
        }
      }
      for (int part = 0; part < PARTITIONS; part++) {
        assertThat(first.get(part))
            .as("first offset read on partition %d", part)
            .isEqualTo(end3.get(new TopicPartition(TOPIC, part)));
      }
      assertThat(end4).isNotEmpty();
    }
  }

  private KafkaConsumer<byte[], byte[]> groupConsumer(String group, Class<?> assignor) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
    p.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
    p.put(
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
        org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
    p.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        org.apache.kafka.common.serialization.ByteArrayDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 3_000);
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
    return new KafkaConsumer<>(p);
  }
}
