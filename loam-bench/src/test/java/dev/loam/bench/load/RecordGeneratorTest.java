package dev.loam.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bench's payloads: JSON values are valid JSON log lines of exactly the record size, distinct,
 * carry the send time back to the consumer, and compress as logs do; random values keep the binary
 * send time.
 */
class RecordGeneratorTest {
  private static BenchConfig config(String payload, int recordBytes) {
    BenchConfig d = BenchConfig.defaults();
    return new BenchConfig(
        d.name(),
        d.producers(),
        d.consumers(),
        recordBytes,
        d.keys(),
        d.partitions(),
        d.nodes(),
        d.transport(),
        d.rate(),
        d.duration(),
        d.warmup(),
        d.durabilityClass(),
        d.flushMillis(),
        d.recordsPerAppend(),
        d.inFlight(),
        d.walObjectBytes(),
        d.objectsInFlight(),
        d.commitsInFlight(),
        d.store(),
        d.zoneStore(),
        d.latency(),
        d.coCorrection(),
        d.seed(),
        "zstd",
        payload);
  }

  @Test
  void jsonValuesAreJsonLogLinesOfTheSizeCarryingTheSendTime() throws Exception {
    RecordGenerator g = new RecordGenerator(config("json", 1024), 0);
    ObjectMapper m = new ObjectMapper();
    Set<String> traces = new HashSet<>();
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    long[] times = {0L, 1L, 123_456_789_012_345L, -5L, Long.MAX_VALUE, Long.MIN_VALUE};
    for (int i = 0; i < 2000; i++) {
      long t = times[i % times.length];
      byte[] v = g.value(t);
      assertThat(v).hasSize(1024);
      assertThat(RecordGenerator.sentNanos(v)).isEqualTo(t);
      JsonNode n = m.readTree(v);
      assertThat(n.path("level").asText()).isIn("INFO", "WARN", "ERROR", "DEBUG");
      assertThat(n.path("http").path("status").asInt()).isBetween(200, 599);
      traces.add(n.path("trace_id").asText());
      all.write(v);
    }
    assertThat(traces.size()).isGreaterThan(1500);
    byte[] raw = all.toByteArray();
    int compressed = com.github.luben.zstd.Zstd.compress(raw, 3).length;
    assertThat((double) raw.length / compressed).isBetween(2.5, 20.0);
  }

  @Test
  void randomValuesKeepTheBinarySendTime() {
    RecordGenerator g = new RecordGenerator(config("random", 1024), 1);
    byte[] v = g.value(987_654_321L);
    assertThat(v).hasSize(1024);
    assertThat(RecordGenerator.sentNanos(v)).isEqualTo(987_654_321L);
  }
}
