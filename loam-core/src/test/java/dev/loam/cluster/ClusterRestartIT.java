package dev.loam.cluster;

import static dev.loam.cluster.RatisCluster.get;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node killed while the others go on appending, restarted from its directory: its replica catches
 * up and it serves everything, then takes appends again. Snapshots every 20 entries and 16 KiB log
 * segments let the leader purge its log behind the stopped replica, so the catch-up goes through a
 * snapshot install (which RatisSnapshotIT in loam-meta proves at the metastore level).
 */
class ClusterRestartIT {
  private static final int PARTITIONS = 2;
  private static final long SNAPSHOT_EVERY = 20;

  @TempDir Path dir;

  @Test
  void aNodeRestartedFromItsDirectoryCatchesUpAndServesEverything() throws Exception {
    try (RatisCluster c =
        RatisCluster.start(
            dir,
            3,
            RatisCluster.FAST,
            b -> b.snapshotThresholdEntries(SNAPSHOT_EVERY).logSegmentSizeBytes(16 * 1024))) {
      get(c.log("n1").createNamespace("ns"));
      get(c.log("n1").createStream("ns", "s", StreamSpec.standard(PARTITIONS)));
      c.awaitInSync();
      appendSome(c, List.of("n1", "n2", "n3"), 0, 30);
      String leader = c.leaderId();
      String stopped = c.ids().stream().filter(id -> !id.equals(leader)).findFirst().get();
      List<String> others = c.ids().stream().filter(id -> !id.equals(stopped)).toList();
      long snapshotBefore = c.meta(leader).latestSnapshotIndex();
      c.kill(stopped);

      // Many commits while it is down: several snapshots, the Raft log purged behind them.
      appendSome(c, others, 30, 200);
      assertThat(c.meta(leader).latestSnapshotIndex()).isGreaterThan(snapshotBefore);

      c.restart(stopped);
      c.awaitInSync();
      StreamDescription want = get(c.log(others.get(0)).describeStream("ns", "s"));
      StreamDescription got = get(c.log(stopped).describeStream("ns", "s"));
      assertThat(got.partitions()).isEqualTo(want.partitions());
      for (int p = 0; p < PARTITIONS; p++) {
        List<String> expected = values(RatisCluster.readAll(c.log(others.get(0)), "ns", "s", p));
        assertThat(values(RatisCluster.readAll(c.log(stopped), "ns", "s", p)))
            .as("partition %d on the restarted %s", p, stopped)
            .isEqualTo(expected);
      }
      long total = 0;
      for (int p = 0; p < PARTITIONS; p++) {
        total += RatisCluster.readAll(c.log(stopped), "ns", "s", p).size();
      }
      assertThat(total).isEqualTo(230);

      // It takes appends again under its new epoch, and the others read them.
      AppendResult r = get(c.log(stopped).append("ns", "s", List.of(AppendRecord.of("k", "back"))));
      int p = r.positions().get(0).partition();
      assertThat(
              get(c.log(others.get(0))
                      .fetch(
                          "ns",
                          "s",
                          p,
                          r.positions().get(0).offset(),
                          1 << 20,
                          java.time.Duration.ZERO,
                          java.util.OptionalLong.of(r.consistencyToken())))
                  .records())
          .extracting(FetchedRecord::valueAsString)
          .containsExactly("back");
    }
  }

  /** Appends {@code n} single-record appends through {@code nodes} in turn, 8 in flight. */
  private static void appendSome(RatisCluster c, List<String> nodes, int from, int n)
      throws Exception {
    List<CompletableFuture<AppendResult>> window = new ArrayList<>();
    for (int i = from; i < from + n; i++) {
      window.add(
          c.log(nodes.get(i % nodes.size()))
              .append("ns", "s", List.of(AppendRecord.of("k" + i, "v" + i))));
      if (window.size() == 8) {
        CompletableFuture.allOf(window.toArray(CompletableFuture[]::new))
            .get(RatisCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS);
        window.clear();
      }
    }
    CompletableFuture.allOf(window.toArray(CompletableFuture[]::new))
        .get(RatisCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static List<String> values(List<FetchedRecord> records) {
    return records.stream().map(r -> r.offset() + ":" + r.valueAsString()).toList();
  }
}
