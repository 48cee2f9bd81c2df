package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.StreamDescription;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kafka's Admin client against the gateway: topics are streams of the listener's namespace. */
class AdminIT {
  @TempDir Path dir;
  KafkaTestSupport k;
  Admin admin;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
    admin = k.admin();
  }

  @AfterEach
  void stop() {
    admin.close();
    k.close();
  }

  private StreamDescription stream(String name) {
    return k.node.log().describeStream("default", name).join();
  }

  private static Throwable cause(java.util.function.Supplier<KafkaFuture<?>> f) {
    try {
      f.get().get();
      throw new AssertionError("expected a failure");
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  private Config configs(String topic) throws Exception {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin.describeConfigs(List.of(r)).all().get().get(r);
  }

  @Test
  void createDescribeAlterGrowAndDeleteTopics() throws Exception {
    admin
        .createTopics(
            List.of(
                new NewTopic("events", 3, (short) 3)
                    .configs(Map.of("retention.ms", "3600000", "cleanup.policy", "compact")),
                new NewTopic("plain", java.util.Optional.empty(), java.util.Optional.empty())))
        .all()
        .get();
    assertThat(stream("events").spec().partitions()).isEqualTo(3);
    assertThat(stream("events").spec().retentionMillis()).isEqualTo(3_600_000);
    assertThat(stream("events").spec().compacted()).isTrue();
    assertThat(stream("plain").spec().partitions()).isEqualTo(1);

    assertThat(admin.listTopics().names().get()).containsExactlyInAnyOrder("events", "plain");
    TopicDescription d =
        admin.describeTopics(List.of("events")).allTopicNames().get().get("events");
    assertThat(d.partitions()).hasSize(3);
    assertThat(d.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
    int self = admin.describeCluster().nodes().get().iterator().next().id();
    assertThat(d.partitions()).allSatisfy(p -> assertThat(p.leader().id()).isEqualTo(self));
    // The same topic by id.
    TopicDescription byId =
        admin
            .describeTopics(TopicCollection.ofTopicIds(List.of(d.topicId())))
            .allTopicIds()
            .get()
            .get(d.topicId());
    assertThat(byId.name()).isEqualTo("events");

    Config c = configs("events");
    assertThat(c.get("retention.ms").value()).isEqualTo("3600000");
    assertThat(c.get("retention.ms").source())
        .isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
    assertThat(c.get("retention.bytes").value()).isEqualTo("-1");
    assertThat(c.get("retention.bytes").source())
        .isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
    assertThat(c.get("cleanup.policy").value()).isEqualTo("compact");

    ConfigResource events = new ConfigResource(ConfigResource.Type.TOPIC, "events");
    admin
        .incrementalAlterConfigs(
            Map.of(
                events,
                List.of(
                    new AlterConfigOp(
                        new ConfigEntry("retention.bytes", "1048576"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(
                        new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE),
                    new AlterConfigOp(
                        new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SET))))
        .all()
        .get();
    assertThat(stream("events").spec().retentionBytes()).isEqualTo(1_048_576);
    assertThat(stream("events").spec().retentionMillis()).isEqualTo(-1);
    assertThat(stream("events").spec().compacted()).isFalse();

    // Unknown keys and bad values are INVALID_CONFIG naming the key; nothing changes.
    Throwable unknown =
        cause(
            () ->
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            events,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("retention.bytes", "5"),
                                    AlterConfigOp.OpType.SET),
                                new AlterConfigOp(
                                    new ConfigEntry("segment.bytes", "1000"),
                                    AlterConfigOp.OpType.SET))))
                    .all());
    assertThat(unknown)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("segment.bytes");
    Throwable bad =
        cause(
            () ->
                admin
                    .incrementalAlterConfigs(
                        Map.of(
                            events,
                            List.of(
                                new AlterConfigOp(
                                    new ConfigEntry("retention.ms", "soon"),
                                    AlterConfigOp.OpType.SET))))
                    .all());
    assertThat(bad)
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("retention.ms");
    assertThat(stream("events").spec().retentionBytes()).isEqualTo(1_048_576);

    // Grow; a shrink is INVALID_PARTITIONS.
    admin.createPartitions(Map.of("events", NewPartitions.increaseTo(5))).all().get();
    assertThat(stream("events").partitions()).hasSize(5);
    assertThat(
            cause(
                () -> admin.createPartitions(Map.of("events", NewPartitions.increaseTo(2))).all()))
        .isInstanceOf(InvalidPartitionsException.class)
        .hasMessageContaining("5");

    // Delete by name and by id.
    admin.deleteTopics(List.of("plain")).all().get();
    Uuid eventsId = d.topicId();
    admin.deleteTopics(TopicCollection.ofTopicIds(List.of(eventsId))).all().get();
    assertThat(k.node.log().listStreams("default").join()).isEmpty();
    assertThat(cause(() -> admin.deleteTopics(List.of("plain")).all()))
        .isInstanceOf(UnknownTopicOrPartitionException.class);
  }

  @Test
  void createRefusesWhatLoamCannotStoreAndValidateOnlyCreatesNothing() throws Exception {
    admin.createTopics(List.of(new NewTopic("dup", 1, (short) 1))).all().get();
    assertThat(cause(() -> admin.createTopics(List.of(new NewTopic("dup", 1, (short) 1))).all()))
        .isInstanceOf(TopicExistsException.class);
    assertThat(
            cause(
                () ->
                    admin
                        .createTopics(
                            List.of(
                                new NewTopic("cfg", 1, (short) 1)
                                    .configs(Map.of("segment.ms", "1"))))
                        .all()))
        .isInstanceOf(InvalidConfigurationException.class)
        .hasMessageContaining("segment.ms");
    assertThat(
            cause(
                () ->
                    admin
                        .createTopics(List.of(new NewTopic("assigned", Map.of(0, List.of(1, 2)))))
                        .all()))
        .isInstanceOf(InvalidReplicaAssignmentException.class);
    admin
        .createTopics(
            List.of(new NewTopic("dry", 4, (short) 1)),
            new CreateTopicsOptions().validateOnly(true))
        .all()
        .get();
    Collection<String> names = admin.listTopics().names().get();
    assertThat(names).containsExactly("dup");
  }

  @Test
  void clusterAndOffsets() throws Exception {
    DescribeClusterResult c = admin.describeCluster();
    assertThat(c.clusterId().get()).isEqualTo(k.node.clusterId());
    assertThat(c.nodes().get()).hasSize(1);
    assertThat(c.nodes().get().iterator().next().port()).isEqualTo(k.gateway.port());
    assertThat(c.controller().get().id()).isEqualTo(c.nodes().get().iterator().next().id());
    // The listener is published in the node registry for the other gateways.
    assertThat(k.node.log().listNodes(java.util.Optional.empty()).join().get(0).endpoints())
        .containsEntry("kafka", "127.0.0.1:" + k.gateway.port());

    admin.createTopics(List.of(new NewTopic("ts", 1, (short) 1))).all().get();
    long[] stamps = {5_000, 9_000, 7_000, 9_000, 1_000};
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      for (long s : stamps) {
        p.send(new ProducerRecord<>("ts", 0, s, null, new byte[] {1})).get();
      }
    }
    TopicPartition tp = new TopicPartition("ts", 0);
    Map<TopicPartition, ListOffsetsResultInfo> max =
        admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).all().get();
    assertThat(max.get(tp).offset()).isEqualTo(1);
    assertThat(max.get(tp).timestamp()).isEqualTo(9_000);
    assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).all().get().get(tp).offset())
        .isZero();
    assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset())
        .isEqualTo(5);
    assertThat(
            admin
                .listOffsets(Map.of(tp, OffsetSpec.forTimestamp(6_000)))
                .all()
                .get()
                .get(tp)
                .offset())
        .isEqualTo(1);
  }
}
