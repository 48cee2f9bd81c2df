package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.ratis.server.DivisionInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FollowerWatchdog} on a real three-voter Ratis group over loopback sockets: the view it
 * reads from the leader pairs each follower with its own match index and answer age, and a follower
 * judged stuck makes the leader hand its leadership to the other, caught-up voter. The stuck state
 * itself (a Ratis log appender holding a restarted follower's old match index) cannot be produced
 * on demand, so the hand-over test freezes one follower's match index in the view the watchdog
 * judges; everything else (answers, the leader's log, the transfer) is Ratis's own.
 */
class FollowerWatchdogIT {
  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private RatisTestCluster cluster;
  private FollowerWatchdog watchdog;

  @AfterEach
  void tearDown() {
    if (watchdog != null) {
      watchdog.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
  }

  private static DivisionInfo info(RatisMetastore m) throws Exception {
    return m.raftServer().getDivision(m.raftGroupId()).getInfo();
  }

  private static Map<String, StuckFollowerDetector.Follower> view(RatisMetastore leader)
      throws Exception {
    Optional<List<StuckFollowerDetector.Follower>> v = FollowerWatchdog.followers(info(leader));
    assertThat(v).as("the leader's view of its followers").isPresent();
    return v.get().stream()
        .collect(Collectors.toMap(StuckFollowerDetector.Follower::id, Function.identity()));
  }

  @Test
  void theLeadersViewPairsEachFollowerWithItsOwnProgress() throws Exception {
    cluster = RatisTestCluster.start(dir, 3, MetaSettings.defaults(), clock, executor, b -> b);
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    String down =
        cluster.ids().stream().filter(id -> !id.equals(leader.peerId())).findFirst().orElseThrow();
    String up =
        cluster.ids().stream()
            .filter(id -> !id.equals(leader.peerId()) && !id.equals(down))
            .findFirst()
            .orElseThrow();
    cluster.stop(down);
    for (int i = 0; i < 20; i++) {
      RatisFixtures.commitOne(leader, stream, "o" + i, clock);
    }
    long applied = info(leader).getLastAppliedIndex();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    Map<String, StuckFollowerDetector.Follower> v = view(leader);
    // The live follower reaches the leader's applied index and answers all the time; the stopped
    // one keeps the index it had when it stopped and its last answer ages.
    while ((v.get(up).matchIndex() < applied || v.get(down).lastRpcElapsedMillis() < 1_500)
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
      v = view(leader);
    }
    assertThat(v.keySet()).containsExactlyInAnyOrder(up, down);
    assertThat(v.get(up).matchIndex()).isGreaterThanOrEqualTo(applied);
    assertThat(v.get(up).lastRpcElapsedMillis()).isBetween(0L, 1_000L);
    assertThat(v.get(down).matchIndex()).isLessThan(applied - 19);
    assertThat(v.get(down).lastRpcElapsedMillis()).isGreaterThanOrEqualTo(1_500L);
  }

  @Test
  void aStuckFollowerMakesTheLeaderHandOverToTheOtherVoter() throws Exception {
    cluster = RatisTestCluster.start(dir, 3, MetaSettings.defaults(), clock, executor, b -> b);
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    List<String> followers =
        cluster.ids().stream().filter(id -> !id.equals(leader.peerId())).toList();
    String stuck = followers.get(0);
    String other = followers.get(1);
    AtomicLong frozenAt = new AtomicLong(-1);
    watchdog =
        new FollowerWatchdog(
            leader.raftServer(),
            leader.raftGroupId(),
            org.apache.ratis.protocol.RaftPeerId.valueOf(leader.peerId()),
            cluster.voters().keySet(),
            leader::adminClient,
            executor,
            Duration.ofSeconds(3),
            Duration.ofSeconds(1),
            Duration.ofSeconds(5),
            Duration.ofMinutes(1),
            view ->
                frozenAt.get() < 0
                    ? view
                    : view.stream()
                        .map(
                            f ->
                                f.id().equals(stuck)
                                    ? new StuckFollowerDetector.Follower(
                                        f.id(), frozenAt.get(), f.lastRpcElapsedMillis())
                                    : f)
                        .toList());
    watchdog.start();
    // A healthy group under writes: no hand-over in twice the stand-still window.
    for (int i = 0; i < 30; i++) {
      RatisFixtures.commitOne(leader, stream, "a" + i, clock);
      Thread.sleep(200);
    }
    assertThat(watchdog.handOvers()).isZero();
    assertThat(leader.isLeader()).isTrue();

    // The follower still answers, but the leader's view of it stops moving.
    frozenAt.set(view(leader).get(stuck).matchIndex());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int i = 0;
    while (leader.isLeader() && System.nanoTime() < deadline) {
      RatisFixtures.commitOne(leader, stream, "b" + i++, clock);
      Thread.sleep(200);
    }
    assertThat(watchdog.handOvers()).isEqualTo(1);
    assertThat(leader.isLeader()).as("the old leader handed over").isFalse();
    assertThat(cluster.leader().peerId()).isEqualTo(other);
    // Writes go on through the new leader.
    RatisFixtures.commitOne(cluster.member(stuck), stream, "after", clock);
  }
}
