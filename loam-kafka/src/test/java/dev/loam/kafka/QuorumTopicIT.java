package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.Durability;
import dev.loam.api.LoamNode;
import dev.loam.api.StreamSpec;
import dev.loam.journal.node.JournalNodeHost;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A quorum topic through the Kafka gateway on three nodes with journal ports: Metadata names the
 * journal's leader as every partition's leader, an idempotent kafka-clients producer's records are
 * acknowledged with consecutive offsets, and a consumer on another node's gateway reads them back
 * in order, the older ones of a partition written past its journal's bound of unsealed bytes from
 * the segments they were sealed into.
 */
class QuorumTopicIT {
  @TempDir Path dir;
  ExecutorService metaExecutor;
  InMemoryObjectStore store;
  Metastore meta;
  final List<LoamNode> nodes = new ArrayList<>();
  final List<KafkaGateway> gateways = new ArrayList<>();

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @BeforeEach
  void start() throws Exception {
    metaExecutor = Executors.newSingleThreadExecutor();
    store = new InMemoryObjectStore(InstantSource.system());
    meta =
        EmbeddedMetastore.open(
            dir.resolve("meta"),
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExecutor);
    for (int i = 1; i <= 3; i++) {
      LoamNode n =
          LoamNode.builder()
              .nodeId("n" + i)
              .settings(KafkaTestSupport.FAST.withIdentity("http://n" + i, "z" + i, 1))
              .objectStore(store)
              .metastore(meta)
              .journalAddress("127.0.0.1:" + freePort())
              .journalDir(dir.resolve("journal-n" + i))
              // The smallest bound, so the records below are sealed into segments several times.
              .journalMaxUnsealedBytes(1 << 20)
              .start();
      nodes.add(n);
      gateways.add(
          KafkaGateway.start(n, KafkaGatewaySettings.builder().port(0).ioThreads(1).build()));
    }
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        nodes
            .get(0)
            .log()
            .createStream("default", "q", StreamSpec.standard(2).withClass(Durability.QUORUM))
            .get(10, TimeUnit.SECONDS);
        break;
      } catch (Exception e) {
        // The journal endpoints are advertised by each node's first placement pass.
        assertThat(System.nanoTime()).as("quorum topic created: " + e).isLessThan(end);
        Thread.sleep(50);
      }
    }
  }

  @AfterEach
  void stop() {
    gateways.forEach(KafkaGateway::close);
    nodes.forEach(LoamNode::close);
    meta.close();
    store.close();
    metaExecutor.shutdownNow();
  }

  private static Admin admin(KafkaGateway g) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + g.port());
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    return Admin.create(p);
  }

  /** The gateway port of the node leading the journal, once it has a leader. */
  private int leaderGatewayPort() throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < end) {
      for (int i = 0; i < nodes.size(); i++) {
        JournalNodeHost h = (JournalNodeHost) nodes.get(i).quorumHost().orElseThrow();
        if (h.server().hosts("quorum-1") && h.server().isLeader("quorum-1")) {
          return gateways.get(i).port();
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no journal leader within 20 s");
  }

  @Test
  void produceAndConsumeAQuorumTopic() throws Exception {
    int leaderPort = leaderGatewayPort();
    // Each gateway names the journal leader as the leader of both partitions.
    for (KafkaGateway g : gateways) {
      try (Admin a = admin(g)) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
          TopicDescription d = a.describeTopics(List.of("q")).allTopicNames().get().get("q");
          List<Integer> ports = new ArrayList<>();
          for (var p : d.partitions()) {
            Node leader = p.leader();
            ports.add(leader.port());
          }
          if (ports.stream().allMatch(p -> p == leaderPort)) {
            break;
          }
          // A follower learns the leader from Raft's heartbeats: a moment after the election.
          assertThat(System.nanoTime()).as("leaders " + ports).isLessThan(end);
          Thread.sleep(50);
        }
      }
    }

    Map<String, Object> pc = new HashMap<>();
    pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + gateways.get(1).port());
    pc.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    pc.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    List<Long> offsets = new ArrayList<>();
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pc)) {
      for (int i = 0; i < 20; i++) {
        RecordMetadata m =
            p.send(
                    new ProducerRecord<>(
                        "q", i % 2, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
        if (m.partition() == 0) {
          offsets.add(m.offset());
        }
      }
      // Then 1.5 MB more into partition 0: past its journal's bound of unsealed bytes, so these
      // appends are only taken because the journal leader's sealer moves the tail to segments.
      String big = "b".repeat(10_000);
      for (int i = 0; i < 150; i++) {
        p.send(new ProducerRecord<>("q", 0, null, (big + i).getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
      }
    }
    assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    long streamId = meta.read(r -> r.stream("default", "q")).orElseThrow().id();
    List<dev.loam.meta.command.IndexEntry> sealed =
        meta.read(r -> r.indexEntries(streamId, 0, 0, 1000));
    assertThat(sealed)
        .as("partition 0's oldest records are in segments")
        .hasSizeGreaterThanOrEqualTo(2)
        .allSatisfy(e -> assertThat(e.objectKey()).startsWith("seg/"));

    Map<String, Object> cc = new HashMap<>();
    cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + gateways.get(2).port());
    cc.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    List<String> p0 = new ArrayList<>();
    List<String> p1 = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cc)) {
      List<TopicPartition> tps = List.of(new TopicPartition("q", 0), new TopicPartition("q", 1));
      c.assign(tps);
      c.seekToBeginning(tps);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (p0.size() + p1.size() < 170 && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          (r.partition() == 0 ? p0 : p1).add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
      assertThat(c.endOffsets(tps)).containsEntry(tps.get(0), 160L).containsEntry(tps.get(1), 10L);
      assertThat(c.beginningOffsets(tps)).containsEntry(tps.get(0), 0L);
    }
    List<String> expected0 =
        new ArrayList<>(List.of("v0", "v2", "v4", "v6", "v8", "v10", "v12", "v14", "v16", "v18"));
    for (int i = 0; i < 150; i++) {
      expected0.add("b".repeat(10_000) + i);
    }
    assertThat(p0).containsExactlyElementsOf(expected0);
    assertThat(p1).containsExactly("v1", "v3", "v5", "v7", "v9", "v11", "v13", "v15", "v17", "v19");
  }

  /**
   * A consumer group on a quorum topic: a member subscribed through one gateway reads part of the
   * records and commits its offsets; a second member of the same group, through another gateway,
   * resumes exactly there; the committed offsets are what the Admin client lists.
   */
  @Test
  void aConsumerGroupCommitsAndResumesOnAQuorumTopic() throws Exception {
    leaderGatewayPort();
    Map<String, Object> pc = new HashMap<>();
    pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + gateways.get(0).port());
    pc.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    pc.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pc)) {
      for (int i = 0; i < 40; i++) {
        p.send(new ProducerRecord<>("q", i % 2, null, ("g" + i).getBytes(StandardCharsets.UTF_8)))
            .get(30, TimeUnit.SECONDS);
      }
    }
    List<String> seen = new ArrayList<>();
    Map<TopicPartition, Long> committed = new HashMap<>();
    try (KafkaConsumer<byte[], byte[]> c = groupMember(gateways.get(1))) {
      c.subscribe(List.of("q"));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (seen.size() < 10 && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          seen.add(new String(r.value(), StandardCharsets.UTF_8));
          committed.merge(new TopicPartition("q", r.partition()), r.offset() + 1, Math::max);
        }
      }
      assertThat(seen).hasSizeGreaterThanOrEqualTo(10);
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> toCommit =
          new HashMap<>();
      committed.forEach(
          (tp, o) -> toCommit.put(tp, new org.apache.kafka.clients.consumer.OffsetAndMetadata(o)));
      c.commitSync(toCommit, Duration.ofSeconds(15));
    }
    try (Admin a = admin(gateways.get(2))) {
      Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> listed =
          a.listConsumerGroupOffsets("quorum-readers")
              .partitionsToOffsetAndMetadata()
              .get(15, TimeUnit.SECONDS);
      Map<TopicPartition, Long> listedOffsets = new HashMap<>();
      listed.forEach((tp, om) -> listedOffsets.put(tp, om.offset()));
      assertThat(listedOffsets).isEqualTo(committed);
    }
    try (KafkaConsumer<byte[], byte[]> c = groupMember(gateways.get(2))) {
      c.subscribe(List.of("q"));
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (seen.size() < 40 && System.nanoTime() < end) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
          seen.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      expected.add("g" + i);
    }
    // Every record exactly once across the two members: the second resumed at the commit.
    assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
    for (int part = 0; part < 2; part++) {
      int pp = part;
      List<String> ofPartition =
          seen.stream().filter(v -> Integer.parseInt(v.substring(1)) % 2 == pp).toList();
      assertThat(ofPartition)
          .as("partition %d in order", part)
          .containsExactlyElementsOf(
              expected.stream().filter(v -> Integer.parseInt(v.substring(1)) % 2 == pp).toList());
    }
  }

  private static KafkaConsumer<byte[], byte[]> groupMember(KafkaGateway g) {
    Map<String, Object> cc = new HashMap<>();
    cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + g.port());
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, "quorum-readers");
    cc.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cc.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cc.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5);
    return new KafkaConsumer<>(cc);
  }
}
