package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leader is closed while proposals continue through every member: every acknowledged commit is
 * applied exactly once on the survivors, and a retry of a commit whose outcome was unknown never
 * appends it twice (stream-engine.txt §3 commit dedupe).
 */
class RatisFailoverIT {
  private static final int LANES = 4;
  private static final int PER_LANE = 50;
  private static final int KILL_AFTER = 60;

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
  void leaderKillLosesNoAcknowledgedCommitAndAppliesNoneTwice() throws Exception {
    cluster = RatisTestCluster.start(dir, 3, MetaSettings.defaults(), clock, executor, b -> b);
    RatisMetastore leader = cluster.leader();
    RatisMetastore follower =
        cluster.members().stream().filter(m -> m != leader).findFirst().orElseThrow();
    long stream = RatisFixtures.setUp(follower, clock);

    Map<String, Long> acked = new ConcurrentHashMap<>();
    Set<String> unknown = ConcurrentHashMap.newKeySet();
    Set<String> deduplicated = ConcurrentHashMap.newKeySet();
    AtomicInteger ackCount = new AtomicInteger();
    CompletableFuture<Void> killPoint = new CompletableFuture<>();
    List<CompletableFuture<Void>> lanes = new ArrayList<>();
    for (int lane = 0; lane < LANES; lane++) {
      // Half the lanes propose through the leader: their in-flight proposals lose their replica.
      Metastore first = lane % 2 == 0 ? leader : follower;
      int l = lane;
      CompletableFuture<Void> done = new CompletableFuture<>();
      Thread t =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < PER_LANE; i++) {
                    String key = "wal/standard/n1/lane-" + l + "-" + i + ".wal";
                    CommitWal c = RatisFixtures.commit(stream, key, clock);
                    Applied a = proposeUntilKnown(first, follower, c, unknown);
                    Outcome.WalCommitted w = (Outcome.WalCommitted) a.outcome();
                    if (w.deduplicated()) {
                      deduplicated.add(key);
                    }
                    acked.put(key, RatisFixtures.offsetOf(a));
                    if (ackCount.incrementAndGet() == KILL_AFTER) {
                      killPoint.complete(null);
                    }
                  }
                  done.complete(null);
                } catch (Throwable e) {
                  done.completeExceptionally(e);
                  killPoint.completeExceptionally(e);
                }
              },
              "lane-" + lane);
      t.start();
      lanes.add(done);
    }
    killPoint.get(RatisTestCluster.TIMEOUT_SECONDS, TimeUnit.SECONDS);
    cluster.stop(leader.peerId());
    for (CompletableFuture<Void> lane : lanes) {
      lane.get(120, TimeUnit.SECONDS);
    }

    int total = LANES * PER_LANE;
    System.err.println(
        "failover run: unknownOutcomes=" + unknown.size() + " deduplicated=" + deduplicated.size());
    assertThat(acked).hasSize(total);
    // A dedupe answer only ever comes from a retry of a proposal whose outcome was unknown.
    assertThat(unknown).containsAll(deduplicated);
    cluster.awaitInSync();
    List<RatisMetastore> survivors = cluster.members();
    assertThat(survivors).hasSize(2);
    for (RatisMetastore m : survivors) {
      assertThat(RatisFixtures.highWatermark(m, stream)).as(m.peerId()).isEqualTo(total);
      List<IndexEntry> entries = RatisFixtures.entries(m, stream);
      Set<String> keys = new HashSet<>();
      for (int i = 0; i < entries.size(); i++) {
        IndexEntry e = entries.get(i);
        assertThat(keys.add(e.objectKey())).as("applied twice: " + e.objectKey()).isTrue();
        assertThat(e.baseOffset()).isEqualTo(i);
        assertThat(acked.get(e.objectKey())).as(e.objectKey()).isEqualTo(e.baseOffset());
      }
      assertThat(keys).isEqualTo(acked.keySet());
    }
    assertThat(survivors.get(0).appliedIndex()).isEqualTo(survivors.get(1).appliedIndex());
    assertThat(survivors.get(0).stateSnapshotBytes())
        .isEqualTo(survivors.get(1).stateSnapshotBytes());
  }

  /**
   * Proposes {@code c}; on OUTCOME_UNKNOWN or UNAVAILABLE retries the same command through {@code
   * fallback}. Bounded.
   */
  private static Applied proposeUntilKnown(
      Metastore first, Metastore fallback, CommitWal c, Set<String> unknown) throws Exception {
    Metastore via = first;
    for (int attempt = 0; attempt < 10; attempt++) {
      try {
        return via.propose(c).get(120, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        LoamException le = (LoamException) e.getCause();
        if (le.kind() == LoamException.Kind.OUTCOME_UNKNOWN) {
          unknown.add(c.objectKey());
        } else {
          assertThat(le.kind()).as(le.toString()).isEqualTo(LoamException.Kind.UNAVAILABLE);
        }
        via = fallback;
      }
    }
    throw new AssertionError("no outcome after 10 attempts key=" + c.objectKey());
  }
}
