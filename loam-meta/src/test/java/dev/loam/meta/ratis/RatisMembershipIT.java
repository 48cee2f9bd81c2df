package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loam.error.LoamException;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Runtime membership changes through {@link RatisMetastore#setConfiguration}
 * (docs/design/metastore-ratis.md "Membership"), over loopback: grow 3 to 5 voters while commits
 * flow (the new voters catch up by snapshot install, the log having been purged), shrink 5 to 3
 * removing the leader, promote a listener, and a change naming a peer that is not running. After
 * each change every member holds the same bytes, and a check that only the new configuration's
 * majority can pass shows which configuration is in force.
 */
// Runs beside the other classes marked so: its groups mostly wait for elections and closes.
@Execution(ExecutionMode.CONCURRENT)
class RatisMembershipIT {
  private static final long SNAPSHOT_EVERY = 40;

  @TempDir Path dir;
  private final ManualClock clock = new ManualClock(RatisFixtures.START_MILLIS);
  private final ExecutorService executor = Executors.newFixedThreadPool(6);
  private RatisTestCluster cluster;
  private int nextKey;

  @AfterEach
  void tearDown() {
    if (cluster != null) {
      cluster.close();
    }
    executor.shutdownNow();
  }

  private void startCluster(int voters, int listeners) {
    cluster =
        RatisTestCluster.start(
            dir,
            voters,
            listeners,
            MetaSettings.defaults(),
            clock,
            executor,
            // Slow elections: heartbeats on a loaded 2-core box arrive hundreds of ms late, and
            // leadership must not flap under the assertions. Small snapshots and segments so that
            // the log really is purged.
            b ->
                b.electionTimeout(Duration.ofMillis(1_000), Duration.ofMillis(2_000))
                    .requestTimeout(Duration.ofSeconds(3))
                    .maxAttempts(30)
                    .snapshotThresholdEntries(SNAPSHOT_EVERY)
                    .logSegmentSizeBytes(16 * 1024));
  }

  private synchronized String nextKey() {
    return "wal/standard/n1/obj-" + (nextKey++) + ".wal";
  }

  @Test
  void growThreeToFiveWhileCommittingThenShrinkToThreeRemovingTheLeader() throws Exception {
    startCluster(3, 0);
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    Set<String> acked = ConcurrentHashMap.newKeySet();
    // Purge the start of the log, so new voters can only catch up by snapshot install.
    int commits = 0;
    while (leader.logStartIndex() <= 0) {
      assertThat(commits++).as("log never purged").isLessThan(5_000);
      commit(leader, stream, acked);
    }
    long purgedBelow = leader.logStartIndex();

    // Grow: the new peers start first, with settings naming the 5-voter configuration.
    Map<String, String> five = new LinkedHashMap<>(cluster.voters());
    five.put("m4", RatisTestCluster.newAddress());
    five.put("m5", RatisTestCluster.newAddress());
    cluster.reconfigure(five, Map.of());
    cluster.start("m4");
    cluster.start("m5");
    String stable = follower(leader);
    try (Committer committer = new Committer(cluster.member(stable), stream, acked)) {
      int before = committer.awaitAcks(3);
      RatisTestCluster.get(leader.setConfiguration(five, Map.of()));
      // Commits kept flowing while the configuration changed.
      assertThat(committer.awaitAcks(before + 3)).isGreaterThan(before);
    }
    for (String id : List.of("m4", "m5")) {
      RatisMetastore joined = cluster.member(id);
      RatisTestCluster.get(joined.awaitApplied(leader.appliedIndex()));
      // Its log never held the purged entries: a snapshot brought them.
      assertThat(joined.latestSnapshotIndex()).as(id).isGreaterThanOrEqualTo(purgedBelow);
    }
    assertAllAgree(leader, stream, acked);

    // The new majority counts m4 and m5: with two of the old voters down, 3 of 5 remain (1 of 3 of
    // the old configuration), and commits go on.
    List<String> oldFollowers = new ArrayList<>(List.of("m1", "m2", "m3"));
    oldFollowers.remove(leader.peerId());
    for (String id : oldFollowers) {
      cluster.stop(id);
    }
    RatisMetastore m4 = cluster.member("m4");
    cluster.leader();
    for (int i = 0; i < 5; i++) {
      commit(m4, stream, acked);
    }
    for (String id : oldFollowers) {
      cluster.start(id);
    }
    leader = cluster.leader();
    assertAllAgree(leader, stream, acked);

    // Shrink to 3 without the current leader; asked through a member that stays.
    String removedLeader = leader.peerId();
    List<String> keep = new ArrayList<>(List.of("m4", "m5"));
    String thirdKept =
        cluster.voters().keySet().stream()
            .filter(id -> !keep.contains(id) && !id.equals(removedLeader))
            .findFirst()
            .orElseThrow();
    keep.add(thirdKept);
    String otherRemoved =
        cluster.voters().keySet().stream()
            .filter(id -> !keep.contains(id) && !id.equals(removedLeader))
            .findFirst()
            .orElseThrow();
    Map<String, String> three = new LinkedHashMap<>();
    for (String id : keep) {
      three.put(id, cluster.voters().get(id));
    }
    try (Committer committer = new Committer(cluster.member("m5"), stream, acked)) {
      int before = committer.awaitAcks(3);
      RatisTestCluster.get(cluster.member("m4").setConfiguration(three, Map.of()));
      assertThat(committer.awaitAcks(before + 3)).isGreaterThan(before);
    }
    cluster.reconfigure(three, Map.of());
    cluster.stop(removedLeader);
    cluster.stop(otherRemoved);
    RatisMetastore newLeader = cluster.leader();
    assertThat(three).containsKey(newLeader.peerId());
    assertAllAgree(newLeader, stream, acked);

    // Only the new configuration's majority is needed: 2 of the 3 kept voters (2 of 5 would not be
    // a majority of the old one).
    String down = keep.stream().filter(id -> !id.equals(newLeader.peerId())).findFirst().get();
    cluster.stop(down);
    for (int i = 0; i < 5; i++) {
      commit(newLeader, stream, acked);
    }
    cluster.start(down);
    assertAllAgree(cluster.leader(), stream, acked);
  }

  @Test
  void listenerIsPromotedToVoter() {
    startCluster(3, 1);
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    Set<String> acked = ConcurrentHashMap.newKeySet();
    for (int i = 0; i < 10; i++) {
      commit(cluster.member("l1"), stream, acked);
    }
    // Voters: the leader, one other voter and l1; the third voter leaves.
    String kept = follower(leader);
    String removed =
        cluster.voters().keySet().stream()
            .filter(id -> !id.equals(leader.peerId()) && !id.equals(kept))
            .findFirst()
            .orElseThrow();
    Map<String, String> voters = new LinkedHashMap<>();
    voters.put(leader.peerId(), cluster.voters().get(leader.peerId()));
    voters.put(kept, cluster.voters().get(kept));
    voters.put("l1", cluster.listeners().get("l1"));
    RatisTestCluster.get(cluster.member(kept).setConfiguration(voters, Map.of()));
    cluster.reconfigure(voters, Map.of());
    cluster.stop(removed);
    assertAllAgree(cluster.leader(), stream, acked);

    // l1 votes now: with the other kept voter down, the leader and l1 are a majority (under the
    // old configuration one voter of three would not be).
    cluster.stop(kept);
    RatisMetastore l1 = cluster.member("l1");
    for (int i = 0; i < 5; i++) {
      commit(l1, stream, acked);
    }
    // And l1 can lead: the leader goes, the restarted voter and l1 elect one of them.
    String oldLeader = cluster.leader().peerId();
    cluster.start(kept);
    cluster.stop(oldLeader);
    RatisMetastore next = cluster.leader();
    assertThat(next.peerId()).isIn(kept, "l1");
    commit(next, stream, acked);
    cluster.start(oldLeader);
    assertAllAgree(cluster.leader(), stream, acked);
  }

  @Test
  void changeNamingAPeerThatIsNotRunningFailsBoundedAndTheGroupKeepsCommitting() throws Exception {
    startCluster(3, 0);
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    Set<String> acked = ConcurrentHashMap.newKeySet();
    commit(leader, stream, acked);

    Map<String, String> four = new LinkedHashMap<>(cluster.voters());
    RatisMetastore via = cluster.member(follower(leader));
    ExecutionException failed;
    Duration took;
    try (java.net.Socket dead = RatisTestCluster.deadPort()) {
      four.put("m4", "127.0.0.1:" + dead.getLocalPort()); // never started
      long started = System.nanoTime();
      failed =
          catchThrowableOfType(
              () -> via.setConfiguration(four, Map.of()).get(120, TimeUnit.SECONDS),
              ExecutionException.class);
      took = Duration.ofNanos(System.nanoTime() - started);
    }
    assertThat(failed).as("a configuration with a dead peer was accepted").isNotNull();
    LoamException e = (LoamException) failed.getCause();
    assertThat(e.kind()).as(e.toString()).isEqualTo(LoamException.Kind.UNAVAILABLE);
    assertThat(e.getMessage()).contains("m4").contains("unchanged");
    // One staging timeout (3 x 2 s) and scheduling slack, far from the 90 s retry budget.
    assertThat(took).isLessThan(Duration.ofSeconds(40));

    // Ratis refuses at once a change adding as many new voters as it keeps (RATIS-1912): INVALID.
    Map<String, String> six = new LinkedHashMap<>(cluster.voters());
    for (String id : List.of("n1", "n2", "n3")) {
      six.put(id, RatisTestCluster.newAddress());
    }
    ExecutionException refused =
        catchThrowableOfType(
            () -> via.setConfiguration(six, Map.of()).get(120, TimeUnit.SECONDS),
            ExecutionException.class);
    assertThat(refused).isNotNull();
    assertThat(((LoamException) refused.getCause()).kind())
        .as(refused.getCause().toString())
        .isEqualTo(LoamException.Kind.INVALID);
    // Malformed targets are refused before anything is sent.
    assertThatThrownBy(() -> via.setConfiguration(Map.of(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () -> via.setConfiguration(cluster.voters(), Map.of("m1", cluster.voters().get("m1"))))
        .isInstanceOf(IllegalArgumentException.class);

    // Unchanged: 3 voters, of which 2 are a majority (2 of 4 would not be).
    for (int i = 0; i < 3; i++) {
      commit(via, stream, acked);
    }
    cluster.stop(victim(via));
    for (int i = 0; i < 3; i++) {
      commit(via, stream, acked);
    }
    assertAllAgree(cluster.leader(), stream, acked);
  }

  // ---- helpers

  /** Commits a new object through {@code via} and records it as acknowledged. */
  private void commit(RatisMetastore via, long stream, Set<String> acked) {
    String key = nextKey();
    RatisFixtures.commitOne(via, stream, key, clock);
    acked.add(key);
  }

  /** A running voter that is not {@code leader}. */
  private String follower(RatisMetastore leader) {
    return cluster.voters().keySet().stream()
        .filter(id -> !id.equals(leader.peerId()) && cluster.member(id) != null)
        .findFirst()
        .orElseThrow();
  }

  /** A running voter that is neither the leader nor {@code via}. */
  private String victim(RatisMetastore via) {
    RatisMetastore leader = cluster.leader();
    return cluster.voters().keySet().stream()
        .filter(
            id ->
                !id.equals(leader.peerId())
                    && !id.equals(via.peerId())
                    && cluster.member(id) != null)
        .findFirst()
        .orElseThrow();
  }

  /**
   * Every running member has the reference's state bytes, and the stream holds each acknowledged
   * object exactly once at dense offsets.
   */
  private void assertAllAgree(RatisMetastore reference, long stream, Set<String> acked) {
    cluster.awaitInSync();
    byte[] expected = reference.stateSnapshotBytes();
    for (RatisMetastore m : cluster.members()) {
      assertThat(m.appliedIndex()).as(m.peerId()).isEqualTo(reference.appliedIndex());
      assertThat(m.stateSnapshotBytes()).as(m.peerId()).isEqualTo(expected);
    }
    List<IndexEntry> entries = RatisFixtures.entries(reference, stream);
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < entries.size(); i++) {
      assertThat(keys.add(entries.get(i).objectKey())).as("twice: %s", entries.get(i)).isTrue();
      assertThat(entries.get(i).baseOffset()).isEqualTo(i);
    }
    assertThat(keys).containsAll(acked);
  }

  /**
   * Commits one object after another through one replica on its own thread until closed; a commit
   * whose outcome is unknown is retried with the same command (the dedupe makes that safe).
   */
  private final class Committer implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private final Set<String> acked;
    private final Object lock = new Object();
    private int count;

    Committer(RatisMetastore via, long stream, Set<String> acked) {
      this.acked = acked;
      Thread t =
          new Thread(
              () -> {
                try {
                  while (!stop.get()) {
                    CommitWal c = RatisFixtures.commit(stream, nextKey(), clock);
                    Applied a = proposeUntilKnown(via, c);
                    assertThat(a.outcome()).isInstanceOf(Outcome.WalCommitted.class);
                    acked.add(c.objectKey());
                    synchronized (lock) {
                      count++;
                      lock.notifyAll();
                    }
                  }
                  done.complete(null);
                } catch (Throwable e) {
                  done.completeExceptionally(e);
                  synchronized (lock) {
                    lock.notifyAll();
                  }
                }
              },
              "committer-" + via.peerId());
      t.start();
    }

    /** Waits until at least {@code n} commits were acknowledged; returns the count. */
    int awaitAcks(int n) throws InterruptedException {
      long deadline =
          System.nanoTime() + TimeUnit.SECONDS.toNanos(RatisTestCluster.TIMEOUT_SECONDS);
      synchronized (lock) {
        while (count < n) {
          if (done.isCompletedExceptionally()) {
            RatisTestCluster.get(done);
          }
          long left = deadline - System.nanoTime();
          assertThat(left).as("commits stalled at %d, waiting for %d", count, n).isPositive();
          lock.wait(TimeUnit.NANOSECONDS.toMillis(left) + 1);
        }
        return count;
      }
    }

    @Override
    public void close() {
      stop.set(true);
      RatisTestCluster.get(done);
    }
  }

  private static Applied proposeUntilKnown(RatisMetastore via, CommitWal c) throws Exception {
    for (int attempt = 0; ; attempt++) {
      try {
        return via.propose(c).get(120, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        LoamException le = (LoamException) e.getCause();
        assertThat(le.kind())
            .as(le.toString())
            .isIn(LoamException.Kind.OUTCOME_UNKNOWN, LoamException.Kind.UNAVAILABLE);
        assertThat(attempt).as("no outcome for %s", c.objectKey()).isLessThan(5);
      }
    }
  }
}
