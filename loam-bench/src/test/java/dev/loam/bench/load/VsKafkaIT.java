package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiny {@code --vs-kafka} run end to end: a real Apache Kafka broker in its own JVM (from
 * target/kafka-lib, which the build copies before the test phase), 3 s + 1 s warm-up at 2000
 * records/s on each side, the Kafka topic fsyncing every append ({@code --kafka-fsync}). About 30 s
 * on the 2-core machine, so it runs in the normal verify.
 */
class VsKafkaIT {
  @TempDir Path tmp;

  @Test
  @Timeout(value = 150, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void runsTheSameWorkloadOnLoamAndKafkaAndReportsRatios() throws Exception {
    Path out = tmp.resolve("vs-kafka.json");
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--vs-kafka",
              "--kafka-fsync",
              "--duration",
              "3s",
              "--warmup",
              "1s",
              "--rate",
              "2000",
              "--partitions",
              "2",
              "--record-bytes",
              "256",
              "--out",
              out.toString()
            });

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    assertThat(Files.readString(out)).contains("\"kafka\"").contains("\"ratios\"");
    Map<String, Object> report = result.report();
    assertThat((Map<String, Object>) report.get("kafka")).containsKeys("broker", "producer");
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) report.get("scenarios")).get(0);
    Map<String, Object> loamRun =
        (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    Map<String, Object> kafka = (Map<String, Object>) scenario.get("kafka");
    Map<String, Object> kafkaRun = (Map<String, Object>) ((List<Object>) kafka.get("runs")).get(0);

    assertThat(((Number) loamRun.get("records")).longValue()).isPositive();
    assertThat(((Number) kafkaRun.get("records")).longValue()).isPositive();
    assertThat(((Number) kafkaRun.get("records_consumed")).longValue()).isPositive();
    assertThat(((Number) kafkaRun.get("appends_failed")).longValue()).isZero();
    // --kafka-fsync: the topic was created with flush.messages=1 (the broker accepted it).
    assertThat(kafkaRun.get("kafka_fsync_per_append")).isEqualTo(true);
    assertThat(((Number) loamRun.get("node_cpu_us_per_record")).doubleValue()).isPositive();
    Map<String, Object> ratios = (Map<String, Object>) kafka.get("ratios");
    assertThat(ratios)
        .containsKeys(
            "records_per_s",
            "mb_per_s",
            "ack_latency_ms.p50",
            "ack_latency_ms.p99",
            "e2e_latency_ms.p50");
    ratios.forEach((k, v) -> assertThat(((Number) v).doubleValue()).as(k).isPositive().isFinite());
  }
}
