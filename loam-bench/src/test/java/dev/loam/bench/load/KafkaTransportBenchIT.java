package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --transport kafka}: three LoamNodes (one Ratis voter each), a Kafka gateway on each, and
 * the Kafka Java client's producers and consumers of {@code --vs-kafka} through them for a few
 * seconds; every acknowledged record is consumed, nothing fails, and the report says which
 * transport ran.
 */
class KafkaTransportBenchIT {
  @TempDir Path tmp;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void theKafkaClientProducesAndConsumesEveryRecordThroughTheGateways() throws Exception {
    Path out = tmp.resolve("kafka.json");
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--transport", "kafka",
              "--nodes", "3",
              "--producers", "2",
              "--consumers", "2",
              "--duration", "3s",
              "--warmup", "1s",
              "--rate", "2000",
              "--partitions", "3",
              "--record-bytes", "256",
              "--flush-ms", "20",
              "--out", out.toString()
            });

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    assertThat(Files.readString(out)).contains("\"transport\": \"kafka\"");
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) result.report().get("scenarios")).get(0);
    Map<String, Object> config = (Map<String, Object>) scenario.get("config");
    assertThat(config).containsEntry("transport", "kafka").containsEntry("nodes", 3);
    assertThat((String) config.get("transport_detail")).contains("Kafka gateway on each node");
    Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    assertThat(run.get("first_failure")).isNull();
    assertThat(((Number) run.get("appends_failed")).longValue()).isZero();
    // At 2000 records/s no more can be acked in the window than were scheduled in the 1 s warm-up
    // and the 3 s window.
    assertThat(((Number) run.get("records")).longValue()).isBetween(1L, 8_000L);
    long acked = ((Number) run.get("records_acked_whole_run")).longValue();
    assertThat(acked).isGreaterThanOrEqualTo(((Number) run.get("records")).longValue());
    assertThat(((Number) run.get("records_consumed")).longValue()).isEqualTo(acked);
    Map<String, Object> e2e = (Map<String, Object>) run.get("e2e_latency_ms");
    assertThat(((Number) e2e.get("count")).longValue()).isPositive();
    // The nodes' side of the window, as over the other transports.
    assertThat(((Number) run.get("node_cpu_us_per_record")).doubleValue()).isPositive();
    assertThat(((Number) run.get("store_puts_per_s")).doubleValue()).isPositive();
    assertThat(((Number) run.get("metastore_proposals_per_s")).doubleValue()).isPositive();
    assertThat(((Number) run.get("allocated_bytes_per_record")).doubleValue()).isPositive();
    assertThat(run).doesNotContainKeys("broker_cpu_cores_busy", "kafka_fsync_per_append");
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void withSaslTheRunAuthenticatesEveryClientAndSaysSo() throws Exception {
    Path out = tmp.resolve("kafka-sasl.json");
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--transport", "kafka",
              "--kafka-sasl", "scram-sha-512",
              "--duration", "2s",
              "--warmup", "1s",
              "--rate", "1000",
              "--partitions", "2",
              "--record-bytes", "128",
              "--flush-ms", "20",
              "--out", out.toString()
            });
    assertThat(o.kafkaSecurity().describe()).isEqualTo("sasl-SCRAM-SHA-512");
    LoadBench.Outcome result = LoadBench.execute(o);
    assertThat(result.exitCode()).isZero();
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) result.report().get("scenarios")).get(0);
    Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    assertThat(run).containsEntry("kafka_security", "sasl-SCRAM-SHA-512");
    assertThat(run.get("first_failure")).isNull();
    long acked = ((Number) run.get("records_acked_whole_run")).longValue();
    assertThat(acked).isPositive();
    assertThat(((Number) run.get("records_consumed")).longValue()).isEqualTo(acked);
  }

  @Test
  void theSecurityFlagsNeedTheKafkaTransportAndGoTogether() {
    assertThatThrownBy(() -> BenchConfig.parse(new String[] {"--kafka-sasl", "PLAIN"}))
        .hasMessage("--kafka-sasl: needs --transport kafka");
    assertThatThrownBy(
            () ->
                BenchConfig.parse(new String[] {"--transport", "kafka", "--kafka-sasl", "GSSAPI"}))
        .hasMessageStartingWith("--kafka-sasl: one of SCRAM-SHA-512, SCRAM-SHA-256, PLAIN");
    assertThatThrownBy(
            () ->
                BenchConfig.parse(
                    new String[] {"--transport", "kafka", "--kafka-tls-cert", "c.pem"}))
        .hasMessageStartingWith("--kafka-tls-key: ")
        .hasMessageContaining("go together");
    assertThat(BenchConfig.parse(new String[] {"--transport", "kafka"}).kafkaSecurity())
        .isEqualTo(GatewaySecurity.NONE);
  }

  @Test
  void theSideBySideSummaryNamesTheTransport() {
    BenchConfig c = BenchConfig.parse(new String[] {"--transport", "kafka"}).scenarios().get(0);
    LoadBench.ScenarioRuns s =
        new LoadBench.ScenarioRuns(c, List.of(result(200)), List.of(result(100)));
    String text = LoadBench.sideBySide(s);
    assertThat(text)
        .contains("Loam (transport kafka: the same Kafka client code through Loam's gateway)")
        .containsPattern(
            "records_per_s +200.00 \\[200.00..200.00\\] +100.00 \\[100.00..100.00\\] +2.000");
    assertThat(c.describe()).contains("transport=kafka");
    BenchConfig embedded = BenchConfig.defaults();
    assertThat(
            LoadBench.sideBySide(
                new LoadBench.ScenarioRuns(embedded, List.of(result(1)), List.of(result(1)))))
        .contains("Loam (transport embedded) vs Apache Kafka");
  }

  private static LoadRun.Result result(double recordsPerSecond) {
    Histogram h = new Histogram(600_000_000L, 3);
    h.recordValue(1000);
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("records_per_s", recordsPerSecond);
    f.put("ack_latency_ms", LoadRun.percentiles(h));
    f.put("appends_failed", 0L);
    f.put("kafka_fsync_per_append", false);
    return new LoadRun.Result(f, h, h);
  }
}
