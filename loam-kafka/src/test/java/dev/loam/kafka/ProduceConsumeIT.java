package dev.loam.kafka;

import static dev.loam.kafka.KafkaTestSupport.pollFor;
import static dev.loam.kafka.KafkaTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Kafka Java client's producer and consumer against the gateway, records byte for byte. */
class ProduceConsumeIT {
  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
  }

  @AfterEach
  void stop() {
    k.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private List<ProducerRecord<byte[], byte[]>> records(String topic, int n, long baseTs) {
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              topic,
              0,
              baseTs + i * 1000L,
              i % 3 == 0 ? null : b("key-" + i),
              i % 5 == 4 ? null : b("value-" + i + "-\u00e9\u0000\u00ff"));
      r.headers().add(new RecordHeader("h" + i, b("hv" + i)));
      r.headers().add(new RecordHeader("empty", new byte[0]));
      out.add(r);
    }
    return out;
  }

  private List<RecordMetadata> send(
      KafkaProducer<byte[], byte[]> p, List<ProducerRecord<byte[], byte[]>> rs) throws Exception {
    List<Future<RecordMetadata>> fs = new ArrayList<>();
    for (ProducerRecord<byte[], byte[]> r : rs) {
      fs.add(p.send(r));
    }
    p.flush();
    List<RecordMetadata> out = new ArrayList<>();
    for (Future<RecordMetadata> f : fs) {
      out.add(f.get());
    }
    return out;
  }

  private static void assertSame(
      ConsumerRecord<byte[], byte[]> got, ProducerRecord<byte[], byte[]> sent, long offset) {
    assertThat(got.offset()).isEqualTo(offset);
    assertThat(got.key()).isEqualTo(sent.key());
    assertThat(got.value()).isEqualTo(sent.value());
    assertThat(got.timestamp()).isEqualTo(sent.timestamp());
    assertThat(got.headers().toArray()).containsExactly(sent.headers().toArray());
  }

  @Test
  void defaultProducerAndAssignedConsumerRoundTripEveryField() throws Exception {
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic("orders", 2, (short) 1))).all().get();
    }
    long ts = 1_700_000_000_000L;
    List<ProducerRecord<byte[], byte[]>> sent = records("orders", 20, ts);
    List<RecordMetadata> acks;
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      acks = send(p, sent);
    }
    for (int i = 0; i < acks.size(); i++) {
      assertThat(acks.get(i).partition()).isZero();
      assertThat(acks.get(i).offset()).isEqualTo(i);
    }
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      TopicPartition tp = tp("orders", 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      List<ConsumerRecord<byte[], byte[]>> got = pollFor(c, 20);
      assertThat(got).hasSize(20);
      for (int i = 0; i < 20; i++) {
        assertSame(got.get(i), sent.get(i), i);
      }
      // From an offset.
      c.seek(tp, 13);
      List<ConsumerRecord<byte[], byte[]>> tail = pollFor(c, 7);
      assertThat(tail).hasSize(7);
      assertSame(tail.get(0), sent.get(13), 13);
      // By timestamp: the first record at or after ts + 5.5 s is offset 6.
      Map<TopicPartition, OffsetAndTimestamp> byTime = c.offsetsForTimes(Map.of(tp, ts + 5_500));
      assertThat(byTime.get(tp).offset()).isEqualTo(6);
      assertThat(byTime.get(tp).timestamp()).isEqualTo(ts + 6_000);
      assertThat(c.offsetsForTimes(Map.of(tp, ts + 100_000)).get(tp)).isNull();
      assertThat(c.endOffsets(List.of(tp)).get(tp)).isEqualTo(20);
      assertThat(c.beginningOffsets(List.of(tp)).get(tp)).isZero();
      c.seek(tp, byTime.get(tp).offset());
      assertSame(pollFor(c, 1).get(0), sent.get(6), 6);
      // The other partition is empty.
      assertThat(c.endOffsets(List.of(tp("orders", 1))).get(tp("orders", 1))).isZero();
    }
  }

  @Test
  void kafkaAndTheNativeApiReadEachOthersRecords() throws Exception {
    k.node.log().createStream("default", "mixed", dev.loam.api.StreamSpec.standard(1)).join();
    k.node
        .log()
        .append(
            "default",
            "mixed",
            List.of(
                dev.loam.api.AppendRecord.of("native-key", "native-value")
                    .withTimestamp(1_600_000_000_000L)
                    .withHeaders(List.of(new dev.loam.api.Header("h", b("x"))))))
        .join();
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      p.send(new ProducerRecord<>("mixed", 0, 1_600_000_001_000L, b("kafka-key"), b("kafka-value")))
          .get();
    }
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      c.assign(List.of(tp("mixed", 0)));
      List<ConsumerRecord<byte[], byte[]>> got = pollFor(c, 2);
      assertThat(got).hasSize(2);
      assertThat(got.get(0).key()).isEqualTo(b("native-key"));
      assertThat(got.get(0).value()).isEqualTo(b("native-value"));
      assertThat(got.get(0).timestamp()).isEqualTo(1_600_000_000_000L);
      assertThat(got.get(0).headers().lastHeader("h").value()).isEqualTo(b("x"));
      assertThat(got.get(1).offset()).isEqualTo(1);
    }
    var fetched =
        k.node.log().fetch("default", "mixed", 0, 1, 1 << 20, java.time.Duration.ZERO).join();
    assertThat(fetched.records()).hasSize(1);
    assertThat(fetched.records().get(0).key()).isEqualTo(b("kafka-key"));
    assertThat(fetched.records().get(0).value()).isEqualTo(b("kafka-value"));
    assertThat(fetched.records().get(0).timestamp()).isEqualTo(1_600_000_001_000L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void everyCompressionRoundTrips(String codec) throws Exception {
    String topic = "codec-" + codec;
    long ts = 1_700_000_000_000L;
    List<ProducerRecord<byte[], byte[]>> sent = records(topic, 50, ts);
    try (KafkaProducer<byte[], byte[]> p =
        k.producer(
            Map.of(
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                codec,
                ProducerConfig.LINGER_MS_CONFIG,
                50))) {
      List<RecordMetadata> acks = send(p, sent);
      assertThat(acks.get(49).offset()).isEqualTo(49);
    }
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      c.assign(List.of(tp(topic, 0)));
      List<ConsumerRecord<byte[], byte[]>> got = pollFor(c, 50);
      assertThat(got).hasSize(50);
      for (int i = 0; i < 50; i++) {
        assertSame(got.get(i), sent.get(i), i);
      }
    }
  }
}
