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
 * partition. With the read-ahead (the default) the node fetches each object with one GET of the
 * whole object and serves the other partitions from memory; without it, with at most two GETs (the
 * first consumer's, then one merged GET for everyone who asked meanwhile) instead of one GET per
 * partition.
 */
class WalGetMergeNodeTest {
  @TempDir Path dir;

  private static String value(int object, int partition) {
    return "v-" + object + "-" + partition + "-" + "x".repeat(200 + 37 * partition);
  }

  private static void write(Log log, int partitions, int objects) {
    log.createNamespace("ns").join();
    log.createStream("ns", "s", StreamSpec.standard(partitions)).join();
    for (int o = 0; o < objects; o++) {
      List<AppendRecord> recs = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        recs.add(
            new AppendRecord(
                null,
                value(o, p).getBytes(StandardCharsets.UTF_8),
                List.of(),
                OptionalLong.empty(),
                OptionalInt.of(p)));
      }
      log.append("ns", "s", recs).join();
    }
  }

  @Test
  void tenConsumersOfTenPartitionsTakeOneGetPerWalObjectWithReadAhead() throws Exception {
    assertThat(gatedFetches(NodeSettings.DEFAULT_WAL_READ_AHEAD_BYTES, 4)).isEqualTo(4);
  }

  @Test
  void withoutReadAheadTenConsumersTakeAtMostTwoGetsPerWalObject() throws Exception {
    assertThat(gatedFetches(0, 4)).isLessThanOrEqualTo(2 * 4);
  }

  /**
   * 10 consumers, each reading its own partition one fetch at a time on its own thread, not lined
   * up in any way: with the read-ahead about one GET per WAL object, and every record right.
   */
  @Test
  void tenFreeRunningConsumersTakeAboutOneGetPerWalObject() throws Exception {
    int partitions = 10;
    int objects = 30;
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      GatedObjectStore store = new GatedObjectStore(cluster.memoryStore);
      LoamNode node =
          cluster.start("n1", TestCluster.FAST.withTailCacheBytes(0), store, cluster.embeddedMeta);
      Log log = node.log();
      write(log, partitions, objects);
      assertThat(cluster.memoryStore.list("wal/", "", 1000).join().objects()).hasSize(objects);
      int getsBefore = store.rangedGets();
      List<CompletableFuture<List<String>>> consumers = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        int partition = p;
        consumers.add(
            CompletableFuture.supplyAsync(
                () -> {
                  List<String> got = new ArrayList<>();
                  long next = 0;
                  while (got.size() < objects) {
                    FetchResult r = log.fetch("ns", "s", partition, next, 1, Duration.ZERO).join();
                    assertThat(r.records()).isNotEmpty();
                    for (FetchedRecord rec : r.records()) {
                      assertThat(rec.offset()).isEqualTo((long) got.size());
                      got.add(new String(rec.value(), StandardCharsets.UTF_8));
                    }
                    next = r.nextOffset();
                  }
                  return got;
                }));
      }
      for (int p = 0; p < partitions; p++) {
        List<String> got = consumers.get(p).get(60, TimeUnit.SECONDS);
        List<String> want = new ArrayList<>();
        for (int o = 0; o < objects; o++) {
          want.add(value(o, p));
        }
        assertThat(got).isEqualTo(want);
      }
      double perObject = (double) (store.rangedGets() - getsBefore) / objects;
      assertThat(perObject)
          .as("GETs per WAL object (%s)", node.readStats())
          .isLessThanOrEqualTo(1.2);
    }
  }

  /** GETs taken by 10 consumers of 10 partitions fetching at once, GETs released in waves. */
  private int gatedFetches(long readAheadBytes, int objects) throws Exception {
    int partitions = 10;
    try (TestCluster cluster = new TestCluster(dir.resolve("meta-" + readAheadBytes))) {
      GatedObjectStore store = new GatedObjectStore(cluster.memoryStore);
      LoamNode node =
          cluster.start(
              "n1",
              TestCluster.FAST.withTailCacheBytes(0).withWalReadAheadBytes(readAheadBytes),
              store,
              cluster.embeddedMeta);
      Log log = node.log();
      write(log, partitions, objects);
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
          assertThat(r.records().get(o).offset()).isEqualTo(o);
          assertThat(new String(r.records().get(o).value(), StandardCharsets.UTF_8))
              .isEqualTo(value(o, p));
        }
      }
      int gets = store.rangedGets() - getsBefore;
      if (readAheadBytes == 0) {
        assertThat(node.readStats().walMergedGets()).isGreaterThanOrEqualTo(objects);
      } else {
        assertThat(node.readStats().walReadAheadBytes()).isPositive();
      }
      return gets;
    }
  }
}
