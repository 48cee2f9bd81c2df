package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.CommittedOffset;
import dev.loam.api.GroupCoordination;
import dev.loam.api.GroupDescription;
import dev.loam.api.GroupFencedException;
import dev.loam.api.LoamNode;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamSpec;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes on one log (a shared object store and metastore), each with a gateway, and a group of
 * three consumers: the coordinator's node crashes mid-run; the survivors declare it dead, the group
 * moves to one of them, a commit of the old generation is refused, and consumption resumes from the
 * last committed offsets with nothing lost. Reports the failover time.
 */
class GroupFailoverIT {
  static final String TOPIC = "orders";
  static final String GROUP = "billing";
  static final int PARTITIONS = 6;

  @TempDir Path dir;
  ExecutorService metaExecutor;
  InMemoryObjectStore store;
  Metastore meta;
  final Map<String, LoamNode> nodes = new LinkedHashMap<>();
  final Map<String, KafkaGateway> gateways = new LinkedHashMap<>();
  final Map<TopicPartition, Set<Long>> received = new ConcurrentHashMap<>();
  final List<GroupMember> members = new ArrayList<>();

  @BeforeEach
  void start() {
    metaExecutor = Executors.newSingleThreadExecutor();
    store = new InMemoryObjectStore(InstantSource.system());
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExecutor);
    for (String id : List.of("a", "b", "c")) {
      LoamNode n =
          LoamNode.builder()
              .nodeId(id)
              .settings(KafkaTestSupport.FAST.withIdentity("http://" + id, "z1", 1))
              .ownership(OwnershipSettings.defaults().withLivenessTimeout(Duration.ofSeconds(2)))
              .objectStore(store)
              .metastore(meta)
              .start();
      nodes.put(id, n);
      gateways.put(
          id,
          KafkaGateway.start(
              n,
              KafkaGatewaySettings.builder()
                  .port(0)
                  .ioThreads(1)
                  .groups(
                      GroupSettings.classic(
                          Duration.ofMillis(500), Duration.ofMinutes(5), Duration.ofMillis(300)))
                  .build()));
    }
    nodes.get("a").log().createStream("default", TOPIC, StreamSpec.standard(PARTITIONS)).join();
  }

  @AfterEach
  void stop() {
    members.forEach(GroupMember::close);
    gateways.values().forEach(KafkaGateway::close);
    nodes.values().forEach(LoamNode::close);
    meta.close();
    store.close();
    metaExecutor.shutdownNow();
  }

  private String bootstrap() {
    List<String> out = new ArrayList<>();
    gateways.values().forEach(g -> out.add("127.0.0.1:" + g.port()));
    return String.join(",", out);
  }

  private LoamNode survivor() {
    return nodes.values().iterator().next();
  }

  private Map<TopicPartition, Long> produce(int n) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (int part = 0; part < PARTITIONS; part++) {
        for (int i = 0; i < n; i++) {
          producer.send(
              new ProducerRecord<>(TOPIC, part, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
        }
      }
      producer.flush();
    }
    Map<TopicPartition, Long> end = new HashMap<>();
    survivor()
        .log()
        .describeStream("default", TOPIC)
        .join()
        .partitions()
        .forEach(b -> end.put(new TopicPartition(TOPIC, b.partition()), b.highWatermark()));
    return end;
  }

  private static void eventually(String what, BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for: " + what);
      }
      Thread.sleep(20);
    }
  }

  private boolean exactlyOnce() {
    Set<TopicPartition> seen = new HashSet<>();
    for (GroupMember m : members) {
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

  private GroupDescription group() {
    return survivor().log().describeGroup("default", GROUP).join().orElseThrow();
  }

  private boolean committedUpTo(Map<TopicPartition, Long> end) {
    Map<Integer, Long> c = new HashMap<>();
    survivor()
        .log()
        .describeGroup("default", GROUP)
        .join()
        .ifPresent(g -> g.offsets().forEach(o -> c.put(o.partition(), o.offset())));
    return end.entrySet().stream()
        .allMatch(e -> e.getValue().equals(c.get(e.getKey().partition())));
  }

  @Test
  void theGroupMovesWhenItsCoordinatorCrashesAndResumesFromItsCommits() throws Exception {
    Map<TopicPartition, Long> end = produce(20);
    for (String name : List.of("m1", "m2", "m3")) {
      Map<String, Object> o = new HashMap<>();
      o.put(
          ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
          CooperativeStickyAssignor.class.getName());
      members.add(new GroupMember(bootstrap(), GROUP, TOPIC, name, o, received));
    }
    eventually("three members own the six partitions", this::exactlyOnce);
    eventually("everything consumed", () -> allReceived(end));
    eventually("everything committed", () -> committedUpTo(end));

    GroupDescription before = group();
    String dead = before.coordinatorNodeId();
    int oldGeneration = before.generation();
    assertThat(dead).isIn(nodes.keySet());
    Map<Integer, Long> committedAtCrash = new HashMap<>();
    before.offsets().forEach(o -> committedAtCrash.put(o.partition(), o.offset()));

    // The coordinator's process dies: its connections drop, it renews nothing.
    long crashedAt = System.nanoTime();
    gateways.remove(dead).close();
    nodes.remove(dead).crash();

    eventually(
        "the group has a new coordinator and generation, and owns all six again",
        () -> {
          GroupDescription g = group();
          return !g.coordinatorNodeId().equals(dead)
              && !g.coordinatorNodeId().isEmpty()
              && g.generation() > oldGeneration
              && exactlyOnce();
        });
    long failoverMillis = (System.nanoTime() - crashedAt) / 1_000_000;
    System.out.println(
        "group coordinator failover (crash to all partitions assigned, liveness timeout 2 s, "
            + "session timeout 3 s): "
            + failoverMillis
            + " ms");

    // A commit of the old generation, by a member the new coordinator knows, is refused.
    GroupDescription after = group();
    KafkaGateway coordinatorGateway = gateways.get(after.coordinatorNodeId());
    String memberId;
    Properties adminProps = new Properties();
    adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    try (Admin admin = Admin.create(adminProps)) {
      memberId =
          admin.describeConsumerGroups(List.of(GROUP)).all().get().get(GROUP).members().stream()
              .map(MemberDescription::consumerId)
              .findFirst()
              .orElseThrow();
    }
    try (RawKafkaClient raw = new RawKafkaClient(coordinatorGateway.port())) {
      OffsetCommitRequestData d =
          new OffsetCommitRequestData()
              .setGroupId(GROUP)
              .setGenerationIdOrMemberEpoch(oldGeneration)
              .setMemberId(memberId)
              .setTopics(
                  List.of(
                      new OffsetCommitRequestData.OffsetCommitRequestTopic()
                          .setName(TOPIC)
                          .setPartitions(
                              List.of(
                                  new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                      .setPartitionIndex(0)
                                      .setCommittedOffset(0)))));
      OffsetCommitResponse r =
          raw.call(OffsetCommitRequest.Builder.forTopicNames(d).build((short) 8));
      assertThat(r.data().topics().get(0).partitions().get(0).errorCode())
          .isEqualTo(Errors.ILLEGAL_GENERATION.code());
    }
    // The metastore refuses it too, from the coordinator itself at its current epoch.
    LoamNode coordinator = nodes.get(after.coordinatorNodeId());
    GroupCoordination c = coordinator.log().acquireGroupCoordinator("default", GROUP).join();
    // (a cooperative rebalance may have moved on since: the generation only grows)
    assertThat(c.generation()).isGreaterThanOrEqualTo(after.generation());
    Throwable refused =
        coordinator
            .log()
            .commitGroupOffsets(c, oldGeneration, List.of(new CommittedOffset(TOPIC, 0, 0, -1, "")))
            .handle((v, t) -> t)
            .join();
    assertThat(refused).isInstanceOf(CompletionException.class);
    assertThat(refused.getCause()).isInstanceOf(GroupFencedException.class);
    assertThat(group().offsets()).allSatisfy(o -> assertThat(o.offset()).isPositive());

    // Consumption resumes from the committed offsets: everything arrives, and what arrives twice
    // is only what was received but not yet committed when the coordinator died.
    Map<TopicPartition, Long> end2 = produce(10);
    eventually("everything after the failover consumed", () -> allReceived(end2));
    eventually("everything committed again", () -> committedUpTo(end2));
    for (GroupMember m : members) {
      assertThat(m.failure()).as("member %s", m.name).isNull();
      m.duplicates()
          .forEach(
              (tp, offsets) ->
                  assertThat(offsets)
                      .as("redelivered on %s", tp)
                      .allSatisfy(
                          o ->
                              assertThat(o)
                                  .isGreaterThanOrEqualTo(committedAtCrash.get(tp.partition()))));
    }
  }
}
