package dev.loam.kafka;

import static dev.loam.kafka.KafkaTestSupport.pollFor;
import static dev.loam.kafka.KafkaTestSupport.tp;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kcat (librdkafka 2.x's command-line client, installed from Debian by {@link Kcat} if absent)
 * against the gateway: metadata as text and JSON, produce with keys, headers and every compression,
 * consume from the beginning and from an offset, every record compared byte for byte, and records
 * crossing between kcat and the Java client in both directions.
 */
class KcatIT {
  /** One record per line of kcat's output: every field a record has, between fixed delimiters. */
  private static final String FORMAT =
      "key[%K]=%k|value[%S]=%s|headers=%h|partition=%p|offset=%o|timestamp=%T\\n";

  @TempDir static Path dir;
  static KafkaTestSupport k;

  @BeforeAll
  static void start() throws Exception {
    Kcat.binary();
    k = new KafkaTestSupport(dir);
  }

  @AfterAll
  static void stop() {
    k.close();
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static void createTopic(String topic, int partitions) throws Exception {
    try (Admin admin = k.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    }
  }

  private static byte[] kcat(byte[] stdin, String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of("-b", k.bootstrap));
    a.addAll(List.of(args));
    return Kcat.kcatOk(a, stdin, 60);
  }

  /** What {@link #FORMAT} prints for one record. */
  private static String line(
      String key, String value, String headers, int partition, long offset, long timestamp) {
    return "key["
        + (key == null ? -1 : b(key).length)
        + "]="
        + (key == null ? "" : key)
        + "|value["
        + (value == null ? -1 : b(value).length)
        + "]="
        + (value == null ? "" : value)
        + "|headers="
        + headers
        + "|partition="
        + partition
        + "|offset="
        + offset
        + "|timestamp="
        + timestamp
        + "\n";
  }

  @Test
  @SuppressWarnings("unchecked")
  void listsMetadataAsTextAndJson() throws Exception {
    createTopic("kc-meta", 3);
    int brokerId = dev.loam.kafka.internal.cluster.NodeIds.natural("n1");

    String text = s(kcat(null, "-L", "-t", "kc-meta"));
    assertThat(text)
        .contains("1 brokers:")
        .contains("broker " + brokerId + " at 127.0.0.1:" + k.gateway.port())
        .contains("topic \"kc-meta\" with 3 partitions:");
    for (int p = 0; p < 3; p++) {
      assertThat(text)
          .contains(
              "partition "
                  + p
                  + ", leader "
                  + brokerId
                  + ", replicas: "
                  + brokerId
                  + ", isrs: "
                  + brokerId);
    }

    Map<String, Object> json = (Map<String, Object>) MiniJson.parse(s(kcat(null, "-L", "-J")));
    assertThat(((Number) json.get("controllerid")).intValue()).isEqualTo(brokerId);
    List<Object> brokers = (List<Object>) json.get("brokers");
    assertThat(brokers)
        .containsExactly(Map.of("id", (long) brokerId, "name", "127.0.0.1:" + k.gateway.port()));
    Map<String, Object> topic =
        ((List<Object>) json.get("topics"))
            .stream()
                .map(t -> (Map<String, Object>) t)
                .filter(t -> "kc-meta".equals(t.get("topic")))
                .findFirst()
                .orElseThrow();
    List<Object> partitions = (List<Object>) topic.get("partitions");
    assertThat(partitions).hasSize(3);
    for (int p = 0; p < 3; p++) {
      Map<String, Object> pm = (Map<String, Object>) partitions.get(p);
      assertThat(pm).containsEntry("partition", (long) p).containsEntry("leader", (long) brokerId);
      assertThat((List<Object>) pm.get("replicas")).containsExactly(Map.of("id", (long) brokerId));
      assertThat((List<Object>) pm.get("isrs")).containsExactly(Map.of("id", (long) brokerId));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd", "idempotent"})
  void producesKeysHeadersAndEveryCompressionThenConsumesByteForByte(String mode) throws Exception {
    String topic = "kc-produce-" + mode;
    createTopic(topic, 2);
    List<String[]> sent = new ArrayList<>();
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    for (int i = 0; i < 40; i++) {
      // Multi-byte UTF-8, tabs and an empty value: kcat splits only on the newline and the first
      // ':'.
      String key = "key-" + i;
      String value = i == 7 ? "" : "value " + i + "\t\u00e9\u20ac\u00ff " + "x".repeat(i * 10);
      sent.add(new String[] {key, value});
      in.writeBytes(b(key + ":" + value + "\n"));
    }
    List<String> args =
        new ArrayList<>(
            List.of("-P", "-t", topic, "-p", "1", "-K:", "-H", "origin=kcat", "-H", "empty="));
    if (mode.equals("idempotent")) {
      args.addAll(List.of("-X", "enable.idempotence=true"));
    } else {
      args.addAll(List.of("-z", mode));
    }
    long before = System.currentTimeMillis();
    kcat(in.toByteArray(), args.toArray(String[]::new));
    long after = System.currentTimeMillis();

    // The Java consumer sees every byte kcat sent.
    List<Long> timestamps = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      c.assign(List.of(tp(topic, 1)));
      List<ConsumerRecord<byte[], byte[]>> got = pollFor(c, 40);
      assertThat(got).hasSize(40);
      for (int i = 0; i < 40; i++) {
        ConsumerRecord<byte[], byte[]> r = got.get(i);
        assertThat(r.offset()).isEqualTo(i);
        assertThat(r.key()).isEqualTo(b(sent.get(i)[0]));
        assertThat(r.value()).isEqualTo(b(sent.get(i)[1]));
        assertThat(r.headers().toArray())
            .containsExactly(
                new RecordHeader("origin", b("kcat")), new RecordHeader("empty", new byte[0]));
        assertThat(r.timestamp()).isBetween(before, after);
        timestamps.add(r.timestamp());
      }
      assertThat(c.endOffsets(List.of(tp(topic, 0))).get(tp(topic, 0))).isZero();
    }

    // kcat reads them back: from the beginning, then from an offset.
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      all.append(
          line(sent.get(i)[0], sent.get(i)[1], "origin=kcat,empty=", 1, i, timestamps.get(i)));
    }
    String consumed =
        s(kcat(null, "-C", "-t", topic, "-p", "1", "-o", "beginning", "-e", "-f", FORMAT));
    assertThat(consumed).isEqualTo(all.toString());
    StringBuilder tail = new StringBuilder();
    for (int i = 33; i < 40; i++) {
      tail.append(
          line(sent.get(i)[0], sent.get(i)[1], "origin=kcat,empty=", 1, i, timestamps.get(i)));
    }
    assertThat(s(kcat(null, "-C", "-t", topic, "-p", "1", "-o", "33", "-e", "-f", FORMAT)))
        .isEqualTo(tail.toString());
    // An empty partition ends at once.
    assertThat(kcat(null, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-f", FORMAT))
        .isEmpty();
  }

  @Test
  void kcatReadsWhatTheJavaProducerWroteByteForByte() throws Exception {
    String topic = "kc-from-java";
    createTopic(topic, 2);
    long ts = 1_700_000_000_000L;
    List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    StringBuilder expected0 = new StringBuilder();
    StringBuilder expected1 = new StringBuilder();
    long[] next = new long[2];
    for (int i = 0; i < 30; i++) {
      int p = i % 2;
      String key = i % 4 == 0 ? null : "jk-" + i + "-\u00e9";
      String value = i % 9 == 8 ? null : "java value " + i + " \u20ac";
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              topic,
              p,
              ts + i * 1000L,
              key == null ? null : b(key),
              value == null ? null : b(value));
      r.headers().add(new RecordHeader("n", b(Integer.toString(i))));
      r.headers().add(new RecordHeader("e", new byte[0]));
      sent.add(r);
      (p == 0 ? expected0 : expected1)
          .append(line(key, value, "n=" + i + ",e=", p, next[p]++, ts + i * 1000L));
    }
    try (KafkaProducer<byte[], byte[]> p =
        k.producer(Map.of(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"))) {
      for (ProducerRecord<byte[], byte[]> r : sent) {
        p.send(r);
      }
      p.flush();
    }
    assertThat(s(kcat(null, "-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-f", FORMAT)))
        .isEqualTo(expected0.toString());
    assertThat(s(kcat(null, "-C", "-t", topic, "-p", "1", "-o", "beginning", "-e", "-f", FORMAT)))
        .isEqualTo(expected1.toString());
    // By timestamp: partition 1 holds the odd records (ts + 1 s, 3 s, 5 s, 7 s, ...); the first at
    // or after ts + 5.5 s is its offset 3, both for an offset query and for a consume.
    assertThat(s(kcat(null, "-Q", "-t", topic + ":1:" + (ts + 5_500))))
        .containsPattern(topic + " \\[1\\] +offset 3\n");
    assertThat(
            s(
                kcat(
                    null,
                    "-C",
                    "-t",
                    topic,
                    "-p",
                    "1",
                    "-o",
                    "s@" + (ts + 5_500),
                    "-c",
                    "1",
                    "-e",
                    "-f",
                    FORMAT)))
        .isEqualTo(line("jk-7-\u00e9", "java value 7 \u20ac", "n=7,e=", 1, 3, ts + 7_000));
    // Keys and values as raw bytes, without a format: kcat's default output is the value alone.
    byte[] raw = kcat(null, "-C", "-t", topic, "-p", "1", "-o", "-2", "-e", "-D", "\u0001");
    ByteArrayOutputStream want = new ByteArrayOutputStream();
    for (int i = 27; i < 30; i += 2) {
      byte[] v = sent.get(i).value();
      want.writeBytes(v == null ? new byte[0] : v);
      want.write(1);
    }
    assertThat(raw).isEqualTo(want.toByteArray());
  }

  @Test
  void recordsOfKcatAndOfTheJavaProducerInterleaveOnOnePartition() throws Exception {
    String topic = "kc-mixed";
    createTopic(topic, 1);
    kcat(b("a:from kcat 1\n"), "-P", "-t", topic, "-p", "0", "-K:");
    try (KafkaProducer<byte[], byte[]> p = k.producer(Map.of())) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(topic, 0, 1_650_000_000_000L, b("b"), b("from java"));
      r.headers().add(new RecordHeader("via", b("java")));
      p.send(r).get();
    }
    kcat(b("c:from kcat 2\n"), "-P", "-t", topic, "-p", "0", "-K:", "-z", "zstd");
    String out =
        s(
            kcat(
                null,
                "-C",
                "-t",
                topic,
                "-p",
                "0",
                "-o",
                "beginning",
                "-e",
                "-f",
                "%k=%s;%h;%o\\n"));
    assertThat(out).isEqualTo("a=from kcat 1;;0\nb=from java;via=java;1\nc=from kcat 2;;2\n");
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      c.assign(List.of(tp(topic, 0)));
      List<ConsumerRecord<byte[], byte[]>> got = pollFor(c, 3);
      assertThat(got)
          .extracting(r -> s(r.value()))
          .containsExactly("from kcat 1", "from java", "from kcat 2");
      assertThat(got.get(1).headers().toArray())
          .containsExactly((Header) new RecordHeader("via", b("java")));
      assertThat(got.get(0).headers().toArray()).isEmpty();
    }
  }
}
