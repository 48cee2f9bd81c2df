package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.testing.ManualClock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Restarts, snapshots, log purge and snapshot install (docs/design/metastore-ratis.md "Snapshots
 * and purge"), with a small snapshot threshold and small log segments so that purge really deletes.
 */
// Runs beside the other classes marked so: its groups mostly wait for elections and closes.
@Execution(ExecutionMode.CONCURRENT)
class RatisSnapshotIT {
  private static final long SNAPSHOT_EVERY = 40;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private RatisTestCluster cluster;
  private int nextKey;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
  }

  private void startCluster() {
    cluster =
        RatisTestCluster.start(
            dir,
            3,
            MetaSettings.defaults(),
            clock,
            executor,
            b -> b.snapshotThresholdEntries(SNAPSHOT_EVERY).logSegmentSizeBytes(16 * 1024));
  }

  private Applied commit(RatisMetastore via, long stream) {
    return RatisFixtures.commitOne(
        via, stream, "wal/standard/n1/obj-" + (nextKey++) + ".wal", clock);
  }

  /** Every running member has the same state bytes as {@code reference}. */
  private void assertAllAgree(RatisMetastore reference) {
    cluster.awaitInSync();
    byte[] expected = reference.stateSnapshotBytes();
    for (RatisMetastore m : cluster.members()) {
      assertThat(m.appliedIndex()).as(m.peerId()).isEqualTo(reference.appliedIndex());
      assertThat(m.stateSnapshotBytes()).as(m.peerId()).isEqualTo(expected);
    }
  }

  @Test
  void stoppedFollowerLagsThenCatchesUpFromItsDirectory() {
    startCluster();
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    String f = cluster.ids().stream().filter(id -> !id.equals(leader.peerId())).findFirst().get();
    for (int i = 0; i < 20; i++) {
      commit(leader, stream);
    }
    cluster.stop(f);
    Applied last = null;
    for (int i = 0; i < 20; i++) {
      last = commit(leader, stream);
    }
    RatisMetastore restarted = cluster.start(f);
    RatisTestCluster.get(restarted.awaitApplied(last.index()));
    assertThat(RatisFixtures.highWatermark(restarted, stream)).isEqualTo(40);
    assertAllAgree(leader);
  }

  @Test
  void followerBehindThePurgedLogCatchesUpThroughSnapshotInstall() throws IOException {
    startCluster();
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    String f = cluster.ids().stream().filter(id -> !id.equals(leader.peerId())).findFirst().get();
    commit(leader, stream);
    cluster.awaitInSync();
    long stoppedAt = cluster.member(f).lastAppliedLogIndex();
    cluster.stop(f);
    // Commit until the leader has snapshotted and purged the entries the follower lacks.
    Applied last = null;
    int commits = 1;
    while (leader.logStartIndex() <= stoppedAt + 1) {
      assertThat(commits).as("log never purged").isLessThan(5_000);
      last = commit(leader, stream);
      commits++;
    }
    assertThat(leader.latestSnapshotIndex()).isGreaterThan(stoppedAt);

    RatisMetastore restarted = cluster.start(f);
    RatisTestCluster.get(restarted.awaitApplied(last.index()));
    // The entries after stoppedAt are gone from every log, so only a snapshot can have brought
    // them: the follower holds one from past its stop point.
    assertThat(restarted.latestSnapshotIndex()).isGreaterThan(stoppedAt);
    assertThat(RatisFixtures.highWatermark(restarted, stream)).isEqualTo(commits);
    assertAllAgree(leader);
  }

  @Test
  void wholeGroupRestartsFromSnapshotPlusLog() {
    startCluster();
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    for (int i = 0; i < 2 * SNAPSHOT_EVERY + 7; i++) {
      commit(leader, stream);
    }
    cluster.awaitInSync();
    Map<String, byte[]> before = new TreeMap<>();
    for (RatisMetastore m : cluster.members()) {
      before.put(m.peerId(), m.stateSnapshotBytes());
      assertThat(m.latestSnapshotIndex()).as(m.peerId()).isPositive();
    }
    for (String id : cluster.ids()) {
      cluster.stop(id);
    }
    for (String id : before.keySet()) {
      cluster.start(id);
    }
    cluster.awaitInSync();
    for (RatisMetastore m : cluster.members()) {
      // A new leader appends only a configuration entry: the command state is as before.
      assertThat(m.stateSnapshotBytes()).as(m.peerId()).isEqualTo(before.get(m.peerId()));
      assertThat(RatisFixtures.highWatermark(m, stream)).isEqualTo(2 * SNAPSHOT_EVERY + 7);
    }
    Applied after = commit(cluster.leader(), stream);
    assertThat(RatisFixtures.offsetOf(after)).isEqualTo(2 * SNAPSHOT_EVERY + 7);
  }
}
