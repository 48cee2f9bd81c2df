package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiny {@code --nodes 3} and {@code --transport http} runs end to end. {@code --nodes 3}: three
 * LoamNodes in this JVM, each with its own Ratis voter over loopback, producers and consumers
 * spread over them; every acknowledged record is consumed and no append fails.
 */
class ClusterAndHttpBenchIT {
  @TempDir Path tmp;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void threeNodesOnRatisProduceAndConsumeThroughEveryNode() throws Exception {
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--nodes", "3",
              "--producers", "3",
              "--consumers", "3",
              "--duration", "3s",
              "--warmup", "1s",
              "--rate", "3000",
              "--partitions", "3",
              "--record-bytes", "256",
              "--flush-ms", "50",
              "--out", tmp.resolve("cluster.json").toString()
            });
    assertThat(o.scenarios().get(0).nodes()).isEqualTo(3);

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) result.report().get("scenarios")).get(0);
    assertThat((Map<String, Object>) scenario.get("config")).containsEntry("nodes", 3);
    Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    assertThat(((Number) run.get("records")).longValue()).isPositive();
    assertThat(((Number) run.get("appends_failed")).longValue()).isZero();
    assertThat(((Number) run.get("records_consumed")).longValue())
        .isEqualTo(((Number) run.get("records_acked_whole_run")).longValue());
    // Three nodes flush on their own: at least one proposal per node flush reached the log.
    assertThat(((Number) run.get("metastore_proposals_per_s")).doubleValue()).isPositive();
    Map<String, Object> e2e = (Map<String, Object>) run.get("e2e_latency_ms");
    assertThat(((Number) e2e.get("count")).longValue()).isPositive();
  }

  /**
   * {@code --class express,quorum}: the same scenario once per class in one run, the quorum one on
   * a journal replicated by the three nodes' journal servers; every acknowledged record of each is
   * consumed and no append fails.
   */
  @Test
  @Timeout(value = 180, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void expressAndQuorumClassesRunSideBySide() throws Exception {
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--nodes", "3",
              "--class", "express,quorum",
              "--producers", "3",
              "--consumers", "3",
              "--duration", "2s",
              "--warmup", "1s",
              "--rate", "2000",
              "--partitions", "3",
              "--record-bytes", "256",
              "--zone-store", "mem",
              "--out", tmp.resolve("classes.json").toString()
            });

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    List<Object> scenarios = (List<Object>) result.report().get("scenarios");
    assertThat(scenarios).hasSize(2);
    for (Object sc : scenarios) {
      Map<String, Object> scenario = (Map<String, Object>) sc;
      Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
      assertThat(((Number) run.get("records")).longValue()).isPositive();
      assertThat(((Number) run.get("appends_failed")).longValue()).isZero();
      assertThat(((Number) run.get("records_consumed")).longValue())
          .isEqualTo(((Number) run.get("records_acked_whole_run")).longValue());
    }
    assertThat((Map<String, Object>) ((Map<String, Object>) scenarios.get(1)).get("config"))
        .containsEntry("class", "quorum");
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void httpTransportProducesAndConsumesThroughTheNativeApi() throws Exception {
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--transport", "http",
              "--producers", "2",
              "--consumers", "2",
              "--duration", "2s",
              "--warmup", "1s",
              "--rate", "2000",
              "--partitions", "2",
              "--record-bytes", "200",
              "--flush-ms", "20",
              "--out", tmp.resolve("http.json").toString()
            });

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) result.report().get("scenarios")).get(0);
    assertThat((Map<String, Object>) scenario.get("config")).containsEntry("transport", "http");
    Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    assertThat(((Number) run.get("appends_failed")).longValue()).isZero();
    assertThat(((Number) run.get("records")).longValue()).isPositive();
    assertThat(((Number) run.get("records_consumed")).longValue())
        .isEqualTo(((Number) run.get("records_acked_whole_run")).longValue());
  }

  @Test
  void unknownTransportIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> BenchConfig.parse(new String[] {"--transport", "amqp"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--transport: not one of embedded, http, grpc, kafka: amqp");
  }

  @Test
  void nodesOutOfRangeAreRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> BenchConfig.parse(new String[] {"--nodes", "0"}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--nodes: not in 1..5: 0");
  }
}
