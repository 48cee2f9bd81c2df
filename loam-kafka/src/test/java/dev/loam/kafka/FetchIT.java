package dev.loam.kafka;

import static dev.loam.kafka.RawKafkaClient.batch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.StreamSpec;
import dev.loam.kafka.internal.cluster.TopicIds;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Produce and Fetch by topic id and by name, limits, isolation, sessions and offset errors. */
class FetchIT {
  @TempDir Path dir;
  KafkaTestSupport k;
  Uuid topicId;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
    var d = k.node.log().createStream("default", "t", StreamSpec.standard(2)).join();
    topicId = TopicIds.of(k.node.clusterId(), d.id());
  }

  @AfterEach
  void stop() {
    k.close();
  }

  private static ProduceRequest produceById(Uuid id, int partition, MemoryRecords records) {
    ProduceRequestData d =
        new ProduceRequestData()
            .setAcks((short) -1)
            .setTimeoutMs(10_000)
            .setTopicData(
                new ProduceRequestData.TopicProduceDataCollection(
                    List.of(
                            new ProduceRequestData.TopicProduceData()
                                .setTopicId(id)
                                .setPartitionData(
                                    List.of(
                                        new ProduceRequestData.PartitionProduceData()
                                            .setIndex(partition)
                                            .setRecords(records))))
                        .iterator()));
    return new ProduceRequest.Builder((short) 13, (short) 13, d).build((short) 13);
  }

  private static FetchRequest fetch(
      short version, FetchRequestData.FetchTopic topic, int maxBytes, byte isolation, int session) {
    FetchRequestData d =
        new FetchRequestData()
            .setReplicaId(-1)
            .setMaxWaitMs(0)
            .setMinBytes(0)
            .setMaxBytes(maxBytes)
            .setIsolationLevel(isolation)
            .setSessionId(session)
            .setSessionEpoch(session == 0 ? -1 : 1)
            .setTopics(List.of(topic));
    return new FetchRequest.SimpleBuilder(d).build(version);
  }

  private static FetchRequestData.FetchTopic topic(String name, Uuid id, long... offsets) {
    FetchRequestData.FetchTopic t = new FetchRequestData.FetchTopic();
    if (id != null) {
      t.setTopicId(id);
    } else {
      t.setTopic(name);
    }
    for (int p = 0; p < offsets.length; p++) {
      t.partitions()
          .add(
              new FetchRequestData.FetchPartition()
                  .setPartition(p)
                  .setFetchOffset(offsets[p])
                  .setPartitionMaxBytes(1 << 20));
    }
    return t;
  }

  private static List<Record> records(PartitionData p) {
    List<Record> out = new ArrayList<>();
    for (RecordBatch b : ((MemoryRecords) p.records()).batches()) {
      b.ensureValid();
      b.forEach(out::add);
    }
    return out;
  }

  @Test
  void produceAndFetchByTopicIdAndByName() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      ProduceResponse pr = c.call(produceById(topicId, 1, batch(-1, (short) -1, -1, 3, 1000)));
      var part = pr.data().responses().iterator().next();
      assertThat(part.topicId()).isEqualTo(topicId);
      assertThat(part.partitionResponses().get(0).errorCode()).isZero();
      ProduceResponse unknown =
          c.call(produceById(Uuid.randomUuid(), 0, batch(-1, (short) -1, -1, 1, 1000)));
      assertThat(
              unknown.data().responses().iterator().next().partitionResponses().get(0).errorCode())
          .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());

      FetchResponse byId =
          c.call(fetch((short) 18, topic(null, topicId, 0, 0), 1 << 20, (byte) 0, 0));
      assertThat(byId.data().responses().get(0).topicId()).isEqualTo(topicId);
      List<PartitionData> ps = byId.data().responses().get(0).partitions();
      assertThat(records(ps.get(1))).hasSize(3);
      assertThat(records(ps.get(1)).get(2).offset()).isEqualTo(2);
      assertThat(ps.get(1).highWatermark()).isEqualTo(3);
      assertThat(ps.get(1).logStartOffset()).isZero();
      assertThat(records(ps.get(0))).isEmpty();

      FetchResponse byName =
          c.call(fetch((short) 12, topic("t", null, 0, 1), 1 << 20, (byte) 1, 0));
      assertThat(byName.data().responses().get(0).topic()).isEqualTo("t");
      PartitionData p1 = byName.data().responses().get(0).partitions().get(1);
      // From offset 1: the whole batch holding it, as Kafka serves it.
      assertThat(records(p1)).extracting(Record::offset).containsExactly(0L, 1L, 2L);
      // read_committed: the last stable offset is the high watermark.
      assertThat(p1.lastStableOffset()).isEqualTo(3);

      FetchResponse unknownId =
          c.call(fetch((short) 18, topic(null, Uuid.randomUuid(), 0), 1 << 20, (byte) 0, 0));
      assertThat(unknownId.data().responses().get(0).partitions().get(0).errorCode())
          .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
    }
  }

  @Test
  void offsetsOutOfRangeSessionsAndTheResponseLimit() throws Exception {
    try (RawKafkaClient c = new RawKafkaClient(k.gateway.port())) {
      for (int p = 0; p < 2; p++) {
        c.call(RawKafkaClient.produce("t", p, batch(-1, (short) -1, -1, 50, 1000), (short) -1));
      }
      FetchResponse out = c.call(fetch((short) 12, topic("t", null, 99, 0), 1 << 20, (byte) 0, 0));
      PartitionData p0 = out.data().responses().get(0).partitions().get(0);
      assertThat(p0.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
      assertThat(p0.highWatermark()).isEqualTo(50);

      FetchResponse session =
          c.call(fetch((short) 12, topic("t", null, 0, 0), 1 << 20, (byte) 0, 1234));
      assertThat(session.data().errorCode()).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND.code());

      // max_bytes below one batch: the first partition's batch is served whole, the second waits.
      FetchResponse small = c.call(fetch((short) 12, topic("t", null, 0, 0), 10, (byte) 0, 0));
      assertThat(small.data().sessionId()).isZero();
      List<PartitionData> ps = small.data().responses().get(0).partitions();
      assertThat(records(ps.get(0))).hasSize(50);
      assertThat(records(ps.get(1))).isEmpty();
      assertThat(ps.get(1).highWatermark()).isEqualTo(50);
    }
  }
}
