package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.NodeSettings;
import dev.loam.core.ClusterMarker;
import dev.loam.core.ObjectLayout;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Orphan GC deletes only its own cluster's objects, even when the start-time marker check was
 * bypassed and another cluster's objects sit in the same store root: they are outside the prefixes
 * GC lists. Its own orphans of the same age are deleted in the same passes (GC did run).
 */
class ForeignObjectsGcTest {
  @TempDir Path dir;

  @Test
  void aForeignObjectOlderThanTheOrphanAgeSurvivesEveryGcPass() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.system());
    ExecutorService metaExec = Executors.newSingleThreadExecutor();
    ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
    EmbeddedMetastore meta =
        EmbeddedMetastore.open(
            dir,
            MetaSettings.defaults(),
            EmbeddedMetastore.Options.defaults(),
            InstantSource.system(),
            metaExec);
    try {
      NodeRuntime node =
          NodeRuntime.builder()
              .nodeId("n1")
              .settings(
                  NodeSettings.defaults().toBuilder()
                      .maintenanceInterval(Duration.ofHours(1000))
                      .orphanMinAge(Duration.ofMinutes(20))
                      .build())
              .store(store)
              .meta(meta)
              .clock(InstantSource.system())
              .random(new Random(1))
              .scheduler(sched)
              .startTimeout(Duration.ofSeconds(10))
              .start();
      String mine = node.clusterId();
      // Written two hours ago (ULID time), never referenced: orphans by age.
      Ulid old = new Ulid((System.currentTimeMillis() - 7_200_000L) << 16, 42);
      String ownOrphan = ObjectLayout.walKey(DurabilityClass.STANDARD, mine, "n9", old);
      List<String> foreign =
          List.of(
              // Another cluster that bypassed its marker check, same node id, every prefix.
              ObjectLayout.walKey(DurabilityClass.STANDARD, "OTHERCLUSTER", "n1", old),
              ObjectLayout.walKey(DurabilityClass.EXPRESS, "OTHERCLUSTER", "n1", old),
              ObjectLayout.segmentKey("OTHERCLUSTER", 1, 0, 0, old),
              // Keys from before the cluster id was part of them.
              "wal/standard/n1/" + old + ".wal",
              "seg/1/0/0-" + old + ".seg");
      store.put(ownOrphan, new byte[] {1}).join();
      for (String k : foreign) {
        store.put(k, new byte[] {2}).join();
      }
      for (int pass = 0; pass < 3; pass++) {
        node.runMaintenance().get(30, TimeUnit.SECONDS);
      }
      assertThat(store.head(ownOrphan).join()).as("own orphan").isEmpty();
      for (String k : foreign) {
        assertThat(store.head(k).join()).as(k).isPresent();
      }
      assertThat(store.head(ClusterMarker.KEY).join()).isPresent();
      node.stop();
    } finally {
      meta.close();
      sched.shutdownNow();
      metaExec.shutdownNow();
    }
  }
}
