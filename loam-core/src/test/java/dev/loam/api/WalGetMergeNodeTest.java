package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.testing.GatedObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consumers of many partitions catching up at once: each WAL object holds one entry of every
 * partition, and the node fetches each object with at most two GETs (the first consumer's, then one
 * merged GET for everyone who asked meanwhile) instead of one GET per partition.
 */
class WalGetMergeNodeTest {
  @TempDir Path dir;

  @Test
  void tenConsumersOfTenPartitionsTakeAtMostTwoGetsPerWalObject() throws Exception {
    int partitions = 10;
    int objects = 4;
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      GatedObjectStore store = new GatedObjectStore(cluster.memoryStore);
      LoamNode node =
          cluster.start("n1", TestCluster.FAST.withTailCacheBytes(0), store, cluster.embeddedMeta);
      Log log = node.log();
      log.createNamespace("ns").join();
      log.createStream("ns", "s", StreamSpec.standard(partitions)).join();
      for (int o = 0; o < objects; o++) {
        List<AppendRecord> recs = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
          recs.add(
              new AppendRecord(
                  null,
                  ("v-" + o + "-" + p).getBytes(StandardCharsets.UTF_8),
                  List.of(),
                  OptionalLong.empty(),
                  OptionalInt.of(p)));
        }
        log.append("ns", "s", recs).join();
      }
      assertThat(cluster.memoryStore.list("wal/", "", 1000).join().objects()).hasSize(objects);
      store.closeGate();
      int getsBefore = store.rangedGets();
      List<CompletableFuture<FetchResult>> fetches = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        fetches.add(log.fetch("ns", "s", p, 0, 1 << 20, Duration.ZERO));
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (!fetches.stream().allMatch(CompletableFuture::isDone)) {
        assertThat(System.nanoTime()).as("fetches finish").isLessThan(deadline);
        store.releaseAll();
        Thread.sleep(5);
      }
      store.openGate();
      for (int p = 0; p < partitions; p++) {
        FetchResult r = fetches.get(p).get(10, TimeUnit.SECONDS);
        assertThat(r.records()).hasSize(objects);
        for (int o = 0; o < objects; o++) {
          assertThat(new String(r.records().get(o).value(), StandardCharsets.UTF_8))
              .isEqualTo("v-" + o + "-" + p);
        }
      }
      int gets = store.rangedGets() - getsBefore;
      assertThat(gets)
          .as("GETs for %d WAL objects of %d partitions", objects, partitions)
          .isLessThanOrEqualTo(2 * objects);
      assertThat(node.readStats().walMergedGets()).isGreaterThanOrEqualTo(objects);
    }
  }
}
