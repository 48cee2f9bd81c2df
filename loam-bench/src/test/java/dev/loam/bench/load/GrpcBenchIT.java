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
 * A tiny {@code --transport grpc} run end to end: producers call Produce, consumers read through
 * Subscribe, and every acknowledged record is consumed with no failed append.
 */
class GrpcBenchIT {
  @TempDir Path tmp;

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  @SuppressWarnings("unchecked")
  void grpcTransportProducesAndConsumesThroughSubscribe() throws Exception {
    BenchConfig.Options o =
        BenchConfig.parse(
            new String[] {
              "--transport", "grpc",
              "--producers", "2",
              "--consumers", "2",
              "--duration", "2s",
              "--warmup", "1s",
              "--rate", "2000",
              "--partitions", "2",
              "--record-bytes", "200",
              "--flush-ms", "20",
              "--out", tmp.resolve("grpc.json").toString()
            });

    LoadBench.Outcome result = LoadBench.execute(o);

    assertThat(result.exitCode()).isZero();
    Map<String, Object> scenario =
        (Map<String, Object>) ((List<Object>) result.report().get("scenarios")).get(0);
    assertThat((Map<String, Object>) scenario.get("config")).containsEntry("transport", "grpc");
    Map<String, Object> run = (Map<String, Object>) ((List<Object>) scenario.get("runs")).get(0);
    assertThat(((Number) run.get("appends_failed")).longValue()).isZero();
    assertThat(((Number) run.get("records")).longValue()).isPositive();
    assertThat(((Number) run.get("records_consumed")).longValue())
        .isEqualTo(((Number) run.get("records_acked_whole_run")).longValue());
    Map<String, Object> e2e = (Map<String, Object>) run.get("e2e_latency_ms");
    assertThat(((Number) e2e.get("count")).longValue()).isPositive();
  }
}
