package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.LoamNode;
import dev.loam.api.NotOwnerException;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two nodes in two zones on one log (a shared object store and metastore), each with a gateway:
 * Metadata names the client's zone's node as every partition's leader, a record produced through
 * one node is consumed through the other, and a gateway that closes leaves Metadata.
 */
class TwoNodeIT {
  @TempDir Path dir;
  ExecutorService metaExecutor;
  InMemoryObjectStore store;
  Metastore meta;
  LoamNode a;
  LoamNode b;
  KafkaGateway ga;
  KafkaGateway gb;

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
    a = node("a", "za");
    b = node("b", "zb");
    ga = KafkaGateway.start(a, KafkaGatewaySettings.builder().port(0).ioThreads(1).build());
    gb = KafkaGateway.start(b, KafkaGatewaySettings.builder().port(0).ioThreads(1).build());
    a.log().createStream("default", "t", StreamSpec.standard(4)).join();
  }

  private LoamNode node(String id, String zone) {
    return LoamNode.builder()
        .nodeId(id)
        .settings(KafkaTestSupport.FAST.withIdentity("http://" + id, zone, 1))
        .objectStore(store)
        .metastore(meta)
        .start();
  }

  @AfterEach
  void stop() {
    gb.close();
    ga.close();
    b.close();
    a.close();
    meta.close();
    store.close();
    metaExecutor.shutdownNow();
  }

  private static Admin admin(KafkaGateway g, String clientId) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + g.port());
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    return Admin.create(p);
  }

  private static List<Integer> leaders(Admin admin) throws Exception {
    TopicDescription d = admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
    return d.partitions().stream()
        .map(TopicPartitionInfo::leader)
        .map(Node::id)
        .distinct()
        .toList();
  }

  private static int portOf(Admin admin, int kafkaId) throws Exception {
    return admin.describeCluster().nodes().get().stream()
        .filter(n -> n.id() == kafkaId)
        .findFirst()
        .orElseThrow()
        .port();
  }

  @Test
  void leadersAreInTheClientsZoneAndAnyNodeServesAnyPartition() throws Exception {
    try (Admin viaA = admin(ga, "tool,loam_az=zb");
        Admin viaB = admin(gb, "tool,loam_az=za");
        Admin noZone = admin(ga, "tool")) {
      assertThat(viaA.describeCluster().nodes().get()).hasSize(2);
      assertThat(viaA.describeCluster().nodes().get())
          .extracting(Node::rack)
          .containsExactlyInAnyOrder("za", "zb");
      // Asked through a, for a client in zone b: every leader is b.
      List<Integer> zb = leaders(viaA);
      assertThat(zb).hasSize(1);
      assertThat(portOf(viaA, zb.get(0))).isEqualTo(gb.port());
      List<Integer> za = leaders(viaB);
      assertThat(za).hasSize(1);
      assertThat(portOf(viaB, za.get(0))).isEqualTo(ga.port());
      // No zone: the four partitions are spread over both nodes, the same from either gateway.
      assertThat(leaders(noZone)).hasSize(2);
    }

    Map<String, Object> pc = new HashMap<>();
    pc.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + gb.port());
    pc.put(ProducerConfig.CLIENT_ID_CONFIG, "producer,loam_az=za");
    pc.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    pc.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(pc)) {
      for (int i = 0; i < 8; i++) {
        p.send(new ProducerRecord<>("t", i % 4, null, ("v" + i).getBytes(StandardCharsets.UTF_8)))
            .get();
      }
    }
    Map<String, Object> cc = new HashMap<>();
    cc.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + ga.port());
    cc.put(ConsumerConfig.CLIENT_ID_CONFIG, "consumer,loam_az=zb");
    cc.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    cc.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cc)) {
      c.assign(
          List.of(
              KafkaTestSupport.tp("t", 0),
              KafkaTestSupport.tp("t", 1),
              KafkaTestSupport.tp("t", 2),
              KafkaTestSupport.tp("t", 3)));
      List<ConsumerRecord<byte[], byte[]>> got = KafkaTestSupport.pollFor(c, 8);
      assertThat(got).hasSize(8);
      assertThat(got.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)))
          .containsExactlyInAnyOrder("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7");
    }
  }

  @Test
  void aGatewayThatClosesLeavesMetadata() throws Exception {
    gb.close();
    try (Admin viaA = admin(ga, "tool,loam_az=zb")) {
      assertThat(viaA.describeCluster().nodes().get()).hasSize(1);
      List<Integer> leaders = leaders(viaA);
      assertThat(leaders).hasSize(1);
      assertThat(portOf(viaA, leaders.get(0))).isEqualTo(ga.port());
    }
  }

  @Test
  void topicAdminThroughTheNodeThatDoesNotOwnTheStreamIsForwardedToTheOwner() throws Exception {
    a.log().createStream("default", "owned", StreamSpec.standard(2)).join();
    // Stream admin is owner-bound; ask the node that is not the owner.
    String owner = "";
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (owner.isEmpty() && System.nanoTime() < deadline) {
      a.runOwnershipStep().join();
      b.runOwnershipStep().join();
      owner = a.log().streamOwner("default", "owned").join().ownerNodeId();
    }
    KafkaGateway other = owner.equals("a") ? gb : ga;
    LoamNode otherNode = owner.equals("a") ? b : a;
    assertThat(owner).isIn("a", "b");
    // Without forwarding the request would fail: the other node is refused as not the owner.
    assertThat(
            otherNode
                .log()
                .updateStream("default", "owned", StreamUpdate.none().withRetentionMillis(1000))
                .handle((x, e) -> e)
                .join())
        .isInstanceOf(java.util.concurrent.CompletionException.class)
        .hasCauseInstanceOf(NotOwnerException.class);
    // Raw requests to the non-owner only (an Admin client would also learn the owner's address
    // from Metadata and might reach it by itself).
    try (RawKafkaClient raw = new RawKafkaClient(other.port())) {
      IncrementalAlterConfigsRequestData alter = new IncrementalAlterConfigsRequestData();
      IncrementalAlterConfigsRequestData.AlterConfigsResource res =
          new IncrementalAlterConfigsRequestData.AlterConfigsResource()
              .setResourceType(ConfigResource.Type.TOPIC.id())
              .setResourceName("owned");
      res.configs()
          .add(
              new IncrementalAlterConfigsRequestData.AlterableConfig()
                  .setName("retention.ms")
                  .setValue("3600000")
                  .setConfigOperation(AlterConfigOp.OpType.SET.id()));
      alter.resources().add(res);
      IncrementalAlterConfigsResponse altered =
          raw.call(new IncrementalAlterConfigsRequest.Builder(alter).build((short) 1));
      assertThat(altered.data().responses().get(0).errorCode()).isZero();
      assertThat(otherNode.log().describeStream("default", "owned").join().spec().retentionMillis())
          .isEqualTo(3_600_000L);

      CreatePartitionsRequestData grow = new CreatePartitionsRequestData().setTimeoutMs(10_000);
      grow.topics()
          .add(
              new CreatePartitionsRequestData.CreatePartitionsTopic().setName("owned").setCount(5));
      CreatePartitionsResponse grown =
          raw.call(new CreatePartitionsRequest.Builder(grow).build((short) 3));
      assertThat(grown.data().results().get(0).errorCode()).isZero();
      assertThat(otherNode.log().describeStream("default", "owned").join().partitions()).hasSize(5);

      DeleteTopicsResponse deleted =
          raw.call(
              new DeleteTopicsRequest.Builder(
                      new DeleteTopicsRequestData()
                          .setTopicNames(List.of("owned"))
                          .setTimeoutMs(10_000))
                  .build((short) 5));
      assertThat(deleted.data().responses().iterator().next().errorCode()).isZero();
      assertThat(otherNode.log().listStreams("default").join())
          .extracting(d -> d.name())
          .doesNotContain("owned");
    }
  }
}
