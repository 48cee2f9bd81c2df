package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.core.ClusterMarker;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store root belongs to exactly one cluster: the metastore's cluster id, the store's marker, and
 * a node that refuses a store or metastore that does not belong with the other.
 */
class ClusterIdentityTest {
  @TempDir Path dir;

  @Test
  void theFirstNodeMintsTheIdAndMarksTheStoreAndEveryLaterNodeKeepsIt() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode n1 = c.start("n1", TestCluster.FAST);
      String id = n1.clusterId();
      assertThat(id).matches("[0-9A-HJKMNP-TV-Z]{26}");
      byte[] marker = c.memoryStore.get(ClusterMarker.KEY).join();
      assertThat(new String(marker, StandardCharsets.US_ASCII)).contains("cluster_id=" + id);
      LoamNode n2 = c.start("n2", TestCluster.FAST);
      assertThat(n2.clusterId()).isEqualTo(id);
      n1.close();
      assertThat(c.start("n1", TestCluster.FAST).clusterId()).isEqualTo(id);
    }
  }

  @Test
  void aSecondClusterOnTheSameStoreRefusesToStartNamingBothIds() throws Exception {
    try (TestCluster a = new TestCluster(dir.resolve("a"));
        TestCluster b = new TestCluster(dir.resolve("b"))) {
      LoamNode na = a.start("n1", TestCluster.FAST);
      na.log().createStream("default", "s", StreamSpec.standard(1)).join();
      na.log().append("default", "s", List.of(AppendRecord.of(null, "v".getBytes()))).join();
      assertThatThrownBy(() -> b.start("n1", TestCluster.FAST, a.memoryStore, b.embeddedMeta))
          .isInstanceOf(LoamException.class)
          .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.CONFLICT))
          .hasMessageContaining("cluster=" + na.clusterId())
          .hasMessageContaining("another cluster")
          .hasMessageContaining("key=" + ClusterMarker.KEY);
      // The refused node wrote nothing: the first cluster's data is intact.
      assertThat(
              na.log()
                  .fetch("default", "s", 0, 0, 1 << 20, java.time.Duration.ZERO)
                  .join()
                  .records())
          .hasSize(1);
    }
  }

  @Test
  void aMetastoreWhoseObjectsAreNotInTheStoreRefusesToStartNamingAKey() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      LoamNode n = c.start("n1", TestCluster.FAST);
      n.log().createStream("default", "s", StreamSpec.standard(1)).join();
      n.log().append("default", "s", List.of(AppendRecord.of(null, "v".getBytes()))).join();
      n.close();
      InMemoryObjectStore empty = new InMemoryObjectStore(InstantSource.system());
      assertThatThrownBy(() -> c.start("n1", TestCluster.FAST, empty, c.embeddedMeta))
          .isInstanceOf(LoamException.class)
          .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.CORRUPTION))
          .hasMessageContaining("references objects the store does not hold")
          .hasMessageContaining("key=wal/standard/" + n.clusterId() + "/n1/");
    }
  }

  @Test
  void anUnreadableMarkerIsCorruptionNotAFreshStore() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      c.memoryStore.put(ClusterMarker.KEY, "hello".getBytes(StandardCharsets.US_ASCII)).join();
      assertThatThrownBy(() -> c.start("n1", TestCluster.FAST))
          .isInstanceOf(LoamException.class)
          .satisfies(e -> assertThat(((LoamException) e).kind()).isEqualTo(Kind.CORRUPTION))
          .hasMessageContaining("key=" + ClusterMarker.KEY);
    }
  }
}
