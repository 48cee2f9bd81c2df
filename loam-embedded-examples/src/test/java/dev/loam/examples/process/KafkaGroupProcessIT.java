package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer group on a cluster of three {@code loam node} processes, with unmodified Kafka
 * consumers committing offsets: the process that coordinates the group is killed with SIGKILL
 * mid-run. The group moves to a survivor, every record is consumed, the group's committed offsets
 * reach the end of every partition, and no record below an offset committed before the kill is
 * delivered again (a committed offset is never lost). Run for the classic protocol and for KIP-848
 * ({@code group.protocol=consumer}).
 */
class KafkaGroupProcessIT {
  private static final long LIVENESS_MS = 3_000;
  private static final int PARTITIONS = 6;
  private static final int RECORDS = 3_000;
  private static final String TOPIC = "orders";
  private static final String GROUP = "billing";

  private ProcessCluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private String bootstrap() {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < cluster.size(); i++) {
      out.add(cluster.kafkaAddress(i));
    }
    return String.join(",", out);
  }

  @ParameterizedTest(name = "group.protocol={0}")
  @ValueSource(strings = {"classic", "consumer"})
  void theGroupSurvivesTheDeathOfItsCoordinatorsProcess(String protocol) throws Exception {
    cluster =
        ProcessCluster.builder()
            .nodes(3)
            .kafka()
            .logDir(
                Path.of("target", "process-cluster", getClass().getSimpleName() + "-" + protocol))
            .readyTimeout(Duration.ofSeconds(120))
            .nodeArgs("--flush-ms", "10", "--liveness-timeout-ms", Long.toString(LIVENESS_MS))
            .start();
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    produce(RECORDS);

    Map<String, Integer> deliveries = new ConcurrentHashMap<>();
    Map<TopicPartition, Long> committedBeforeKill = new ConcurrentHashMap<>();
    List<String> redeliveredBelowCommit = new ArrayList<>();
    AtomicBoolean killed = new AtomicBoolean();
    AtomicLong firstCommitAfterKillNanos = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> members = new ArrayList<>();
    for (int m = 0; m < 3; m++) {
      Properties c = new Properties();
      c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
      c.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
      c.put(ConsumerConfig.CLIENT_ID_CONFIG, "member-" + m);
      c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
      c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 50);
      if (protocol.equals("classic")) {
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000);
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);
      }
      Thread t =
          new Thread(
              () -> {
                try (KafkaConsumer<byte[], byte[]> consumer =
                    new KafkaConsumer<>(
                        c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                  consumer.subscribe(List.of(TOPIC));
                  while (!stop.get()) {
                    ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                    if (batch.isEmpty()) {
                      continue;
                    }
                    Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                      Long floor = committedBeforeKill.get(tp);
                      if (killed.get() && floor != null && r.offset() < floor) {
                        synchronized (redeliveredBelowCommit) {
                          redeliveredBelowCommit.add(tp + "@" + r.offset() + " < " + floor);
                        }
                      }
                      deliveries.merge(
                          new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
                      next.put(tp, new OffsetAndMetadata(r.offset() + 1));
                    }
                    try {
                      consumer.commitSync(next, Duration.ofSeconds(30));
                    } catch (RuntimeException e) {
                      // A commit refused by a rebalance or lost with the coordinator: the records
                      // stay uncommitted and may be delivered again, which is allowed.
                      continue;
                    }
                    if (killed.get()) {
                      firstCommitAfterKillNanos.compareAndSet(0, System.nanoTime());
                    } else {
                      next.forEach((tp, o) -> committedBeforeKill.merge(tp, o.offset(), Math::max));
                    }
                    Thread.sleep(5); // spread consumption so the kill lands mid-run
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              },
              "group-member-" + m);
      t.start();
      members.add(t);
    }

    awaitDelivered(deliveries, RECORDS / 3, Duration.ofSeconds(90));
    int coordinator;
    try (Admin admin = admin()) {
      coordinator = processOf(describe(admin).coordinator());
    }
    // From here on no commit is recorded as made before the kill: the floors a redelivery is
    // checked against are offsets whose commits were acknowledged before it.
    killed.set(true);
    long killNanos = System.nanoTime();
    cluster.kill9(coordinator);

    awaitDelivered(deliveries, RECORDS, Duration.ofSeconds(120));
    Map<TopicPartition, Long> committed = new HashMap<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try (Admin admin = admin()) {
      while (System.nanoTime() < deadline) {
        committed.clear();
        admin
            .listConsumerGroupOffsets(GROUP)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS)
            .forEach((tp, o) -> committed.put(tp, o == null ? -1 : o.offset()));
        if (committed.size() == PARTITIONS
            && committed.values().stream().mapToLong(Long::longValue).sum() == RECORDS) {
          break;
        }
        Thread.sleep(200);
      }
      ConsumerGroupDescription after = describe(admin);
      assertThat(processOf(after.coordinator()))
          .as("the group's coordinator after the kill")
          .isNotEqualTo(coordinator);
    } finally {
      stop.set(true);
      for (Thread t : members) {
        t.join(30_000);
      }
    }
    assertThat(failure.get()).as("a member failed").isNull();
    assertThat(deliveries.keySet()).as("records consumed").hasSize(RECORDS);
    assertThat(committed.values().stream().mapToLong(Long::longValue).sum())
        .as("committed offsets sum to the records produced: %s", committed)
        .isEqualTo(RECORDS);
    assertThat(redeliveredBelowCommit)
        .as("records delivered again below a committed offset")
        .isEmpty();
    System.out.printf(
        "group %s: coordinator process killed; first commit on the new coordinator after %d ms;"
            + " %d records, %d deliveries%n",
        protocol,
        TimeUnit.NANOSECONDS.toMillis(firstCommitAfterKillNanos.get() - killNanos),
        RECORDS,
        deliveries.values().stream().mapToInt(Integer::intValue).sum());
  }

  private Admin admin() {
    return Admin.create(
        Map.of(
            AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap(),
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            60_000));
  }

  private static ConsumerGroupDescription describe(Admin admin) throws Exception {
    return admin
        .describeConsumerGroups(List.of(GROUP))
        .describedGroups()
        .get(GROUP)
        .get(30, TimeUnit.SECONDS);
  }

  /** The process index whose Kafka listener is {@code n}'s address. */
  private int processOf(Node n) {
    String address = n.host() + ":" + n.port();
    for (int i = 0; i < cluster.size(); i++) {
      if (cluster.kafkaAddress(i).equals(address)) {
        return i;
      }
    }
    throw new AssertionError("no process listens on " + address);
  }

  private void produce(int n) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < n; i++) {
        producer.send(
            new ProducerRecord<>(
                TOPIC,
                Integer.toString(i).getBytes(StandardCharsets.UTF_8),
                ("order-" + i).getBytes(StandardCharsets.UTF_8)));
      }
      producer.flush();
    }
  }

  private static void awaitDelivered(Map<String, Integer> deliveries, int n, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (deliveries.size() < n) {
      assertThat(System.nanoTime())
          .as("%d of %d records consumed within %s", deliveries.size(), n, timeout)
          .isLessThan(deadline);
      Thread.sleep(50);
    }
  }
}
