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
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * KIP-848 groups ({@code group.protocol=consumer}) with the Kafka Java client and the server-side
 * uniform and range assignors: three members share six partitions, each owned by exactly one; a
 * member leaves and one dies (stops heartbeating; its session times out), and the survivors own
 * everything with nothing left unconsumed; a consumer restarting in the group resumes at the
 * committed offsets.
 */
class Kip848GroupIT {
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
                    GroupSettings.defaults()
                        .withConsumerProtocol(Duration.ofSeconds(3), Duration.ofMillis(300))));
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
    }
  }

  @AfterEach
  void stop() {
    members.forEach(GroupMember::close);
    k.close();
  }

  private GroupMember member(String group, String name, String assignor) {
    Map<String, Object> o = new HashMap<>();
    o.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    o.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
    GroupMember m = new GroupMember(k.bootstrap, group, TOPIC, name, o, received);
    members.add(m);
    return m;
  }

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
    k.node
        .log()
        .describeStream("default", TOPIC)
        .join()
        .partitions()
        .forEach(b -> end.put(new TopicPartition(TOPIC, b.partition()), b.highWatermark()));
    return end;
  }

  private static void eventually(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(40).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }

  /** The assignments are disjoint and, with {@code extra}, cover every partition. */
  private static boolean exactlyOnce(List<GroupMember> live, Set<TopicPartition> extra) {
    Set<TopicPartition> seen = new HashSet<>(extra);
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

  @ParameterizedTest
  @ValueSource(strings = {"uniform", "range"})
  void threeMembersShareSixPartitionsAndHandThemOver(String assignor) throws Exception {
    String group = "g848-" + assignor;
    Map<TopicPartition, Long> end = produce(20);
    GroupMember a = member(group, "a", assignor);
    GroupMember b = member(group, "b", assignor);
    GroupMember c = member(group, "c", assignor);
    eventually(
        "three members, two partitions each",
        () ->
            exactlyOnce(List.of(a, b, c), Set.of())
                && a.assignment.size() == 2
                && b.assignment.size() == 2
                && c.assignment.size() == 2);
    eventually("every record consumed", () -> allReceived(end));
    eventually(
        "the stable group described by an admin client",
        () -> {
          try (Admin admin = k.admin()) {
            ConsumerGroupDescription g =
                admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            return g.type() == GroupType.CONSUMER
                && g.groupState() == GroupState.STABLE
                && g.members().size() == 3
                && g.members().stream().allMatch(m -> m.assignment().topicPartitions().size() == 2)
                && admin.listGroups().all().get().stream()
                    .anyMatch(
                        l ->
                            l.groupId().equals(group)
                                && l.type().orElse(null) == GroupType.CONSUMER);
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });

    c.close();
    eventually("a and b own all six after c left", () -> exactlyOnce(List.of(a, b), Set.of()));
    Map<TopicPartition, Long> end2 = produce(10);
    eventually("records after the leave consumed", () -> allReceived(end2));
    for (GroupMember m : members) {
      assertThat(m.duplicates()).as("records %s received twice", m.name).isEmpty();
      assertThat(m.failure()).as("member %s", m.name).isNull();
    }

    // A member that joins, takes partitions, then stops heartbeating (a dead process).
    Uuid topicId =
        k.admin().describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
    Set<TopicPartition> zOwned = new HashSet<>();
    try (RawKafkaClient raw = new RawKafkaClient(k.gateway.port())) {
      ConsumerGroupHeartbeatResponseData r =
          heartbeat(raw, group, "z", 0, List.of(TOPIC), assignor, null);
      assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      int epoch = r.memberEpoch();
      while (zOwned.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(200);
        r = heartbeat(raw, group, "z", epoch, null, null, ownedList(topicId, zOwned));
        assertThat(r.errorCode()).as(r.errorMessage()).isEqualTo(Errors.NONE.code());
        epoch = r.memberEpoch();
        if (r.assignment() != null) {
          for (var t : r.assignment().topicPartitions()) {
            t.partitions().forEach(p -> zOwned.add(new TopicPartition(TOPIC, p)));
          }
        }
      }
      assertThat(zOwned)
          .as("the joining member got partitions once others released them")
          .isNotEmpty();
      heartbeat(raw, group, "z", epoch, null, null, ownedList(topicId, zOwned));
    }
    eventually("z's partitions are nobody else's", () -> exactlyOnce(List.of(a, b), zOwned));
    // z is silent now: after its 3 s session the survivors own everything again.
    eventually(
        "a and b own all six after z's session expired",
        () -> exactlyOnce(List.of(a, b), Set.of()));
    Map<TopicPartition, Long> end3 = produce(10);
    eventually("records after the death consumed", () -> allReceived(end3));
    eventually(
        "everything committed",
        () -> {
          Map<Integer, Long> committed = new HashMap<>();
          k.node
              .log()
              .describeGroup("default", group)
              .join()
              .ifPresent(g -> g.offsets().forEach(x -> committed.put(x.partition(), x.offset())));
          return end3.entrySet().stream()
              .allMatch(e -> e.getValue().equals(committed.get(e.getKey().partition())));
        });
    a.close();
    b.close();

    // A consumer restarting in the group resumes at the committed offsets.
    produce(3);
    Map<TopicPartition, Set<Long>> again = new ConcurrentHashMap<>();
    Map<String, Object> o = new HashMap<>();
    o.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
    o.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
    GroupMember restarted = new GroupMember(k.bootstrap, group, TOPIC, "r", o, again);
    members.add(restarted);
    eventually(
        "the restarted consumer read every partition",
        () -> again.size() == PARTITIONS && again.values().stream().allMatch(x -> x.size() == 3));
    for (Map.Entry<TopicPartition, Set<Long>> e : again.entrySet()) {
      assertThat(e.getValue().stream().mapToLong(Long::longValue).min().orElseThrow())
          .as("first offset read on %s", e.getKey())
          .isEqualTo(end3.get(e.getKey()));
    }
  }

  private static List<ConsumerGroupHeartbeatRequestData.TopicPartitions> ownedList(
      Uuid topicId, Set<TopicPartition> owned) {
    List<Integer> ps = new ArrayList<>();
    owned.forEach(tp -> ps.add(tp.partition()));
    return List.of(
        new ConsumerGroupHeartbeatRequestData.TopicPartitions()
            .setTopicId(topicId)
            .setPartitions(ps));
  }

  private static ConsumerGroupHeartbeatResponseData heartbeat(
      RawKafkaClient raw,
      String group,
      String member,
      int epoch,
      List<String> topics,
      String assignor,
      List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned)
      throws Exception {
    ConsumerGroupHeartbeatRequestData d =
        new ConsumerGroupHeartbeatRequestData()
            .setGroupId(group)
            .setMemberId(member)
            .setMemberEpoch(epoch)
            .setRebalanceTimeoutMs(epoch == 0 ? 30_000 : -1)
            .setSubscribedTopicNames(topics)
            .setServerAssignor(assignor)
            .setTopicPartitions(epoch == 0 ? List.of() : owned);
    ConsumerGroupHeartbeatResponse r =
        raw.call(new ConsumerGroupHeartbeatRequest.Builder(d).build((short) 0));
    return r.data();
  }
}
