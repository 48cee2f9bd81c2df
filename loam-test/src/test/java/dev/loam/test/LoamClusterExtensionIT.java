package dev.loam.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.test.LoamTestCluster.Mode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The @LoamCluster extension: injection, one cluster per test, closed after the test. */
@LoamCluster(nodes = 2, mode = Mode.SHARED_METASTORE)
class LoamClusterExtensionIT {
  private static final List<LoamTestCluster> SEEN = new ArrayList<>();
  private LoamTestCluster fromBeforeEach;

  @BeforeEach
  void setUp(LoamTestCluster cluster) {
    fromBeforeEach = cluster;
  }

  @Test
  void classLevelAnnotationGivesTheTestAndItsBeforeEachOneCluster(LoamTestCluster cluster) {
    assertThat(cluster).isSameAs(fromBeforeEach);
    assertThat(cluster.size()).isEqualTo(2);
    assertThat(cluster.mode()).isEqualTo(Mode.SHARED_METASTORE);
    cluster.log(1).createNamespace("ns").join();
    assertThat(cluster.log(0).listNamespaces().join()).contains("ns");
    SEEN.add(cluster);
  }

  @Test
  @LoamCluster(nodes = 1, mode = Mode.SHARED_METASTORE, zones = "z1")
  void methodAnnotationWins(LoamTestCluster cluster) {
    assertThat(cluster.size()).isEqualTo(1);
    assertThat(cluster.log(0).listNodes(java.util.Optional.of("z1")).join()).hasSize(1);
    SEEN.add(cluster);
  }

  @AfterAll
  static void everyClusterWasClosedAfterItsTest() {
    assertThat(SEEN).hasSize(2).doesNotHaveDuplicates();
    for (LoamTestCluster c : SEEN) {
      assertThat(c.running()).isEmpty();
      assertThatThrownBy(() -> c.node(0)).isInstanceOf(IllegalStateException.class);
    }
  }
}
