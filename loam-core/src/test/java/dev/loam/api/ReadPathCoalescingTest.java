package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.testing.Eventually;
import dev.loam.testing.GatedObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Many consumers reading the same recent range cause one GET per index entry on a node. */
class ReadPathCoalescingTest {
  @TempDir Path dir;

  @Test
  void tenConcurrentConsumersShareOneGetPerEntry() throws Exception {
    int consumers = 10;
    int entries = 5;
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      GatedObjectStore store = new GatedObjectStore(cluster.memoryStore);
      LoamNode node =
          cluster.start("n1", TestCluster.FAST.withTailCacheBytes(0), store, cluster.embeddedMeta);
      Log log = node.log();
      log.createNamespace("ns").join();
      log.createStream("ns", "s", StreamSpec.standard(1)).join();
      for (int i = 0; i < entries; i++) {
        log.append("ns", "s", List.of(AppendRecord.of("k" + i, "value-" + i))).join();
      }
      store.closeGate();
      int getsBefore = store.rangedGets();
      long waitsBefore = node.readStats().coalescedWaits();
      List<CompletableFuture<FetchResult>> fetches = new ArrayList<>();
      for (int c = 0; c < consumers; c++) {
        fetches.add(log.fetch("ns", "s", 0, 0, 1 << 20, Duration.ZERO));
      }
      // Fetches load entries in order: release each entry's one GET once every consumer waits on
      // it.
      for (int k = 0; k < entries; k++) {
        long wanted = waitsBefore + (long) (consumers - 1) * (k + 1);
        Eventually.await(
            () -> store.held() == 1 && node.readStats().coalescedWaits() == wanted,
            "all consumers waiting on entry " + k);
        store.releaseAll();
      }
      for (CompletableFuture<FetchResult> f : fetches) {
        FetchResult r = f.get(10, TimeUnit.SECONDS);
        assertThat(r.records()).hasSize(entries);
        for (int i = 0; i < entries; i++) {
          assertThat(r.records().get(i).offset()).isEqualTo(i);
          assertThat(new String(r.records().get(i).value(), StandardCharsets.UTF_8))
              .isEqualTo("value-" + i);
        }
      }
      assertThat(store.rangedGets() - getsBefore).isEqualTo(entries);
      assertThat(node.readStats().objectGets()).isGreaterThanOrEqualTo(entries);
      store.openGate();
    }
  }
}
