package dev.loam.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.ReadStats;
import dev.loam.api.StreamSpec;
import dev.loam.api.WriterStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoamNodeMetricsTest {
  private static final NodeSettings FAST =
      NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5));

  @TempDir Path dir;

  @Test
  void countersFollowTheNodesWritesAndReads() {
    try (LoamNode node = LoamNode.builder().nodeId("n1").dataDir(dir).settings(FAST).start()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new LoamNodeMetrics(node, Tags.of("service", "orders")).bindTo(registry);

      assertThat(counter(registry, "loam.writer.flushes")).isZero();

      node.log().createNamespace("shop").join();
      node.log().createStream("shop", "orders", StreamSpec.standard(1)).join();
      List<AppendRecord> records = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        records.add(AppendRecord.of("k" + i, "v" + i));
      }
      node.log().append("shop", "orders", records).join();
      FetchResult read = node.log().fetch("shop", "orders", 0, 0, 1 << 20, Duration.ZERO).join();
      assertThat(read.records()).hasSize(10);

      WriterStats w = node.writerStats();
      ReadStats r = node.readStats();
      assertThat(w.flushes()).isPositive();
      assertThat(counter(registry, "loam.writer.flushes")).isEqualTo((double) w.flushes());
      assertThat(counter(registry, "loam.writer.puts")).isEqualTo((double) w.puts());
      assertThat(counter(registry, "loam.writer.put.bytes")).isEqualTo((double) w.putBytes());
      assertThat(counter(registry, "loam.writer.commits")).isEqualTo((double) w.commits());
      assertThat(counter(registry, "loam.writer.put.bytes")).isPositive();
      assertThat(gauge(registry, "loam.writer.commit.latency.mean"))
          .isEqualTo(w.meanCommitMillis() / 1000);
      assertThat(
              counter(registry, "loam.read.tail.cache.hits")
                  + counter(registry, "loam.read.object.gets"))
          .isPositive()
          .isEqualTo((double) (r.tailHits() + r.objectGets()));
      assertThat(gauge(registry, "loam.read.disk.cache.bytes"))
          .isEqualTo((double) r.diskCacheBytes());
    }
  }

  @Test
  void everyMeterCarriesTheNodeClusterAndHostTagsAndAUnitWhereItHasOne() {
    try (LoamNode node = LoamNode.builder().nodeId("n7").dataDir(dir).settings(FAST).start()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new LoamNodeMetrics(node, Tags.of("service", "orders")).bindTo(registry);

      List<Meter> meters = registry.getMeters();
      assertThat(meters).hasSize(26);
      for (Meter m : meters) {
        assertThat(m.getId().getName()).startsWith(LoamNodeMetrics.PREFIX);
        assertThat(m.getId().getDescription()).isNotBlank();
        assertThat(m.getId().getTags())
            .contains(
                Tag.of("loam.node", "n7"),
                Tag.of("loam.cluster", node.clusterId()),
                Tag.of("service", "orders"));
      }
      assertThat(registry.get("loam.writer.put.bytes").meter().getId().getBaseUnit())
          .isEqualTo("bytes");
      assertThat(registry.get("loam.writer.put.latency.mean").meter().getId().getBaseUnit())
          .isEqualTo("seconds");
    }
  }

  @Test
  void twoNodesBindToOneRegistrySideBySide() {
    try (LoamNode a = LoamNode.builder().nodeId("a").dataDir(dir.resolve("a")).start();
        LoamNode b = LoamNode.builder().nodeId("b").dataDir(dir.resolve("b")).start()) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      new LoamNodeMetrics(a).bindTo(registry);
      new LoamNodeMetrics(b).bindTo(registry);

      assertThat(registry.find("loam.writer.flushes").functionCounters()).hasSize(2);
      assertThat(registry.get("loam.writer.flushes").tag("loam.node", "b").functionCounter())
          .isNotNull();
    }
  }

  @Test
  void nullArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> new LoamNodeMetrics(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("node");
  }

  private static double counter(SimpleMeterRegistry r, String name) {
    FunctionCounter c = r.get(name).functionCounter();
    return c.count();
  }

  private static double gauge(SimpleMeterRegistry r, String name) {
    Gauge g = r.get(name).gauge();
    return g.value();
  }
}
