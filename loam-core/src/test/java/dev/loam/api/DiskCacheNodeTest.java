package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.testing.Eventually;
import dev.loam.testing.FaultyObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The disk cache tier on a running node: filled by GETs, served after a restart. */
class DiskCacheNodeTest {
  @TempDir Path dir;

  static List<FetchedRecord> fetchAll(Log log) {
    return log.fetch("ns", "s", 0, 0, 1 << 20, Duration.ZERO).join().records();
  }

  @Test
  void rangesFetchedBeforeARestartAreServedFromDiskAfterIt() throws Exception {
    int entries = 4;
    // Only the disk tier: no tail cache and no WAL read-ahead (which, when it wins the race with
    // the fetch, serves from memory a range the disk would otherwise have served).
    NodeSettings settings =
        TestCluster.FAST
            .withTailCacheBytes(0)
            .withWalReadAheadBytes(0)
            .withDiskCache(dir.resolve("cache"), 1 << 20);
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      FaultyObjectStore store = new FaultyObjectStore(cluster.memoryStore);
      LoamNode n1 = cluster.start("n1", settings, store, cluster.embeddedMeta);
      n1.log().createNamespace("ns").join();
      n1.log().createStream("ns", "s", StreamSpec.standard(1)).join();
      for (int i = 0; i < entries; i++) {
        n1.log().append("ns", "s", List.of(AppendRecord.of("k", "v" + i))).join();
      }
      assertThat(fetchAll(n1.log())).hasSize(entries);
      assertThat(store.gets()).isEqualTo(entries);
      Eventually.await(() -> n1.readStats().diskWrites() == entries, "disk writes");
      assertThat(n1.readStats().objectGets()).isEqualTo(entries);
      n1.close();

      LoamNode again = cluster.start("n1", settings, store, cluster.embeddedMeta);
      Eventually.await(() -> again.readStats().diskCacheEntries() == entries, "disk cache scan");
      List<FetchedRecord> rs = fetchAll(again.log());
      assertThat(rs).hasSize(entries);
      for (int i = 0; i < entries; i++) {
        assertThat(new String(rs.get(i).value(), StandardCharsets.UTF_8)).isEqualTo("v" + i);
      }
      // Every range comes from the disk cache: the read path made no GET. (The store's own GET
      // count is not asserted: besides the cluster marker the restart reads, background
      // maintenance may read a WAL object when the machine is slow enough for it to run.)
      assertThat(store.gets()).isGreaterThanOrEqualTo(entries + 1);
      assertThat(again.readStats().diskHits()).as("%s", again.readStats()).isEqualTo(entries);
      assertThat(again.readStats().objectGets()).isZero();
    }
  }

  @Test
  void aDiskCacheIsOffByDefault() {
    assertThat(NodeSettings.defaults().diskCacheBytes()).isZero();
    assertThat(NodeSettings.defaults().diskCacheDir()).isNull();
  }
}
