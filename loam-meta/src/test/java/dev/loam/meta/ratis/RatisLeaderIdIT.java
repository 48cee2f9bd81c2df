package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RatisMetastore#leaderId()}: every replica names the elected leader, a survivor names the
 * new one after the leader stops, and a closed replica names none.
 */
class RatisLeaderIdIT {
  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final ExecutorService executor = Executors.newFixedThreadPool(4);
  private RatisTestCluster cluster;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
  }

  @Test
  void everyReplicaNamesTheLeaderAndASurvivorTheNextOne() {
    cluster = RatisTestCluster.start(dir, 3, MetaSettings.defaults(), clock, executor, b -> b);
    RatisMetastore leader = cluster.leader();
    for (RatisMetastore m : cluster.members()) {
      // A follower learns the leader from its first append or heartbeat.
      assertThat(eventually(m::leaderId)).as(m.peerId()).contains(leader.peerId());
    }
    cluster.stop(leader.peerId());
    assertThat(leader.leaderId()).isEmpty();
    RatisMetastore next = cluster.leader();
    assertThat(next.peerId()).isNotEqualTo(leader.peerId());
    List<RatisMetastore> survivors = cluster.members();
    for (RatisMetastore m : survivors) {
      assertThat(eventually(() -> m.leaderId().filter(id -> id.equals(next.peerId()))))
          .as(m.peerId())
          .contains(next.peerId());
    }
  }

  /** The first non-empty answer within the cluster's timeout, polled every 10 ms. */
  private static Optional<String> eventually(Supplier<Optional<String>> s) {
    long deadline = System.nanoTime() + RatisTestCluster.TIMEOUT_SECONDS * 1_000_000_000L;
    Optional<String> v = s.get();
    while (v.isEmpty() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(10_000_000L);
      v = s.get();
    }
    return v;
  }
}
