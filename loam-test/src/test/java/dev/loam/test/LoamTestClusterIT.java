package dev.loam.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import dev.loam.test.LoamTestCluster.Mode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LoamTestCluster on real Ratis replicas and on a shared metastore: kill, restart, waits, close.
 */
class LoamTestClusterIT {

  @Test
  void ratisClusterKeepsEveryAcknowledgedRecordThroughAKillOfTheLeader() {
    Set<Thread> before = Threads.live();
    try (LoamTestCluster c = LoamTestCluster.builder().nodes(3).start()) {
      assertThat(c.mode()).isEqualTo(Mode.RATIS);
      assertThat(c.running()).containsExactly(0, 1, 2);
      c.log(0).createNamespace("ns").join();
      c.log(0).createStream("ns", "s", StreamSpec.standard(2)).join();
      assertThat(c.awaitVisible("ns", "s").spec().partitions()).isEqualTo(2);

      Set<String> acked = new HashSet<>();
      appendThroughEach(c, "before", acked);
      int leader = c.metastoreLeader();
      c.kill(leader);
      assertThat(c.isRunning(leader)).isFalse();
      assertThatThrownBy(() -> c.node(leader)).isInstanceOf(IllegalStateException.class);
      int newLeader = c.metastoreLeader();
      assertThat(newLeader).isNotEqualTo(leader);
      appendThroughEach(c, "after", acked);

      c.restart(leader);
      for (int i : c.running()) {
        assertThat(values(c.log(i), 2)).as("node %d", i).containsAll(acked);
      }
    }
    assertThat(Threads.leftSince(before)).isEmpty();
  }

  @Test
  void appendTokenIsAwaitedOnEveryReplica() {
    try (LoamTestCluster c = LoamTestCluster.builder().nodes(3).start()) {
      c.log(0).createNamespace("ns").join();
      long adminToken = c.consistencyToken(0);
      c.awaitReplicated(adminToken);
      for (int i = 0; i < 3; i++) {
        assertThat(c.metastore(i).appliedIndex()).isGreaterThanOrEqualTo(adminToken);
        assertThat(c.log(i).listNamespaces().join()).contains("ns");
      }
      c.log(1).createStream("ns", "s", StreamSpec.standard(1)).join();
      c.awaitVisible("ns", "s");
      AppendResult r = c.log(2).append("ns", "s", List.of(AppendRecord.of("k", "v"))).join();
      c.awaitReplicated(r.consistencyToken());
      for (int i = 0; i < 3; i++) {
        assertThat(c.metastore(i).appliedIndex()).isGreaterThanOrEqualTo(r.consistencyToken());
      }
      assertThatThrownBy(() -> c.awaitReplicated(-1)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void sharedMetastoreClusterRestartsAKilledNode(@TempDir Path dir) {
    Path store = dir.resolve("objects");
    try (LoamTestCluster c =
        LoamTestCluster.builder()
            .nodes(2)
            .mode(Mode.SHARED_METASTORE)
            .storeDirectory(store)
            .zones("a", "b")
            .start()) {
      assertThat(c.metastore(0)).isSameAs(c.metastore(1));
      assertThatThrownBy(c::metastoreLeader).isInstanceOf(IllegalStateException.class);
      c.log(0).createNamespace("ns").join();
      c.log(0).createStream("ns", "s", StreamSpec.standard(1)).join();
      c.awaitVisible("ns", "s");
      Set<String> acked = new HashSet<>();
      appendThroughEach(c, "one", acked);
      c.kill(1);
      assertThatThrownBy(() -> c.restart(0)).isInstanceOf(IllegalStateException.class);
      c.restart(1);
      appendThroughEach(c, "two", acked);
      assertThat(values(c.log(1), 1)).containsAll(acked);
      assertThat(c.log(0).listNodes(java.util.Optional.of("b")).join())
          .extracting(n -> n.nodeId())
          .containsExactly("n1");
    }
    assertThat(store).isDirectory();
    assertThat(Files.exists(store)).isTrue();
  }

  @Test
  void awaitVisibleNamesTheMissingStream() {
    try (LoamTestCluster c =
        LoamTestCluster.builder()
            .nodes(1)
            .mode(Mode.SHARED_METASTORE)
            .timeout(Duration.ofSeconds(5))
            .start()) {
      assertThatThrownBy(() -> c.awaitVisible("nope", "missing"))
          .isInstanceOf(LoamTestClusterException.class)
          .hasMessageContaining("namespace=nope stream=missing");
    }
  }

  @Test
  void aNodeIndexOutOfRangeIsNamed() {
    try (LoamTestCluster c =
        LoamTestCluster.builder().nodes(1).mode(Mode.SHARED_METASTORE).start()) {
      assertThatThrownBy(() -> c.node(1))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("index=1");
    }
  }

  /** Appends one record through every running node, each tagged with {@code tag} and its node. */
  static void appendThroughEach(LoamTestCluster c, String tag, Set<String> acked) {
    for (int i : c.running()) {
      String v = tag + "-" + c.nodeId(i);
      c.log(i).append("ns", "s", List.of(AppendRecord.of(v, v))).join();
      acked.add(v);
    }
  }

  /** Every value of {@code partitions} partitions of ns/s, as {@code log} serves it. */
  static List<String> values(Log log, int partitions) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      long offset = 0;
      while (true) {
        FetchResult r =
            log.fetch("ns", "s", p, offset, 1 << 20, Duration.ZERO, OptionalLong.empty()).join();
        if (r.records().isEmpty()) {
          break;
        }
        r.records().stream().map(FetchedRecord::valueAsString).forEach(out::add);
        offset = r.nextOffset();
      }
    }
    return out;
  }
}
