package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * A listener replica (a non-voting Ratis listener, docs/design/metastore-ratis.md "Membership")
 * next to 3 voters over loopback: it applies every command, serves reads, watches and proposals,
 * and is never counted in a majority.
 */
// Runs beside the other classes marked so: its groups mostly wait for elections and closes.
@Execution(ExecutionMode.CONCURRENT)
class RatisListenerIT {
  /** Few attempts, so a proposal without a majority fails within seconds. */
  private static final int MAX_ATTEMPTS = 15;

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
            1,
            MetaSettings.defaults(),
            clock,
            executor,
            // Elections slower than the other ITs': a loaded 2-core box delays heartbeats by
            // hundreds of milliseconds, and leadership must not flap under the assertions.
            b ->
                b.electionTimeout(Duration.ofMillis(1_000), Duration.ofMillis(2_000))
                    .requestTimeout(Duration.ofSeconds(3))
                    .maxAttempts(MAX_ATTEMPTS));
  }

  private String nextKey() {
    return "wal/standard/n1/obj-" + (nextKey++) + ".wal";
  }

  @Test
  void listenerAppliesEveryCommandServesReadsWatchesAndProposals() {
    startCluster();
    RatisMetastore listener = cluster.member("l1");
    List<Long> watched = new ArrayList<>();
    CompletableFuture<Long> woke = new CompletableFuture<>();
    listener.addApplyListener(
        (index, command, outcome) -> {
          synchronized (watched) {
            watched.add(index);
          }
          if (command instanceof CommitWal c && c.objectKey().endsWith("obj-7.wal")) {
            woke.complete(index);
          }
        });
    RatisMetastore leader = cluster.leader();
    assertThat(listener.isLeader()).isFalse();
    long stream = RatisFixtures.setUp(leader, clock);

    List<RatisMetastore> voters = new ArrayList<>();
    for (String id : cluster.voters().keySet()) {
      voters.add(cluster.member(id));
    }
    long expectedHw = 0;
    for (int i = 0; i < 30; i++) {
      // Through the voters in turn, then read-your-writes on the listener with the token.
      Applied a = RatisFixtures.commitOne(voters.get(i % 3), stream, nextKey(), clock);
      expectedHw++;
      RatisTestCluster.get(listener.awaitApplied(a.index()));
      assertThat(RatisFixtures.highWatermark(listener, stream)).isEqualTo(expectedHw);
      long readAt = listener.read(r -> r.appliedIndex());
      assertThat(readAt).isGreaterThanOrEqualTo(a.index());
    }
    for (int i = 0; i < 10; i++) {
      // Without a token: awaitLatest (the leader's read index) catches the listener up with every
      // commit acknowledged before the call.
      Applied a = RatisFixtures.commitOne(voters.get(i % 3), stream, nextKey(), clock);
      expectedHw++;
      RatisTestCluster.get(listener.awaitLatest());
      assertThat(listener.appliedIndex()).isGreaterThanOrEqualTo(a.index());
      assertThat(RatisFixtures.highWatermark(listener, stream)).isEqualTo(expectedHw);
    }
    // obj-7 was committed through a voter; the listener's apply listener saw it.
    assertThat(RatisTestCluster.get(woke)).isPositive();

    for (int i = 0; i < 10; i++) {
      // Proposals through the listener go to the leader and complete once the listener applied
      // them: its next local read sees them without waiting.
      Applied a = RatisFixtures.commitOne(listener, stream, nextKey(), clock);
      expectedHw++;
      assertThat(listener.appliedIndex()).isGreaterThanOrEqualTo(a.index());
      assertThat(RatisFixtures.offsetOf(a)).isEqualTo(expectedHw - 1);
      assertThat(RatisFixtures.highWatermark(listener, stream)).isEqualTo(expectedHw);
    }
    long linearizable =
        RatisTestCluster.get(listener.readLinearizable(r -> r.partition(stream, 0)))
            .orElseThrow()
            .highWatermark();
    assertThat(linearizable).isEqualTo(expectedHw);

    cluster.awaitInSync();
    assertAllAgree(leader);
    // Every command applied on the listener was announced once, in order, with dense indexes.
    synchronized (watched) {
      assertThat(watched).hasSize((int) leader.appliedIndex());
      for (int i = 0; i < watched.size(); i++) {
        assertThat(watched.get(i)).isEqualTo(i + 1L);
      }
    }
    // Voting never involved the listener.
    assertThat(listener.isLeader()).isFalse();
  }

  @Test
  void listenerIsNeverCountedInAMajority() throws Exception {
    startCluster();
    RatisMetastore listener = cluster.member("l1");
    RatisMetastore leader = cluster.leader();
    long stream = RatisFixtures.setUp(leader, clock);
    for (int i = 0; i < 5; i++) {
      RatisFixtures.commitOne(listener, stream, nextKey(), clock);
    }
    cluster.awaitInSync();
    long before = leader.appliedIndex();
    List<String> followers = new ArrayList<>(cluster.voters().keySet());
    followers.remove(leader.peerId());

    // Two of three voters down: the leader and the listener are up, which would be a majority of
    // four members if the listener counted.
    cluster.stop(followers.get(0));
    cluster.stop(followers.get(1));
    CommitWal stuck = RatisFixtures.commit(stream, nextKey(), clock);
    long started = System.nanoTime();
    ExecutionException failed =
        org.assertj.core.api.Assertions.catchThrowableOfType(
            () -> listener.propose(stuck).get(60, TimeUnit.SECONDS), ExecutionException.class);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(failed).as("a proposal committed without a voter majority").isNotNull();
    assertThat(failed.getCause()).isInstanceOf(LoamException.class);
    assertThat(((LoamException) failed.getCause()).kind())
        .isEqualTo(LoamException.Kind.OUTCOME_UNKNOWN);
    // Bounded by the retry budget (plus scheduling slack on a loaded machine).
    assertThat(took).isLessThan(boundOf().plusSeconds(10));
    // Nothing was committed: neither the remaining voter nor the listener applied anything.
    assertThat(leader.appliedIndex()).isEqualTo(before);
    assertThat(listener.appliedIndex()).isEqualTo(before);

    // One voter back: a majority again. The stuck command may have been appended to the old
    // leader's log before it stepped down, and then commits now (that is what OUTCOME_UNKNOWN warns
    // of); either way a retry of the same command lands exactly once, at the next offset, and a
    // dedupe answer gives the first commit's offset.
    cluster.start(followers.get(0));
    cluster.leader(); // a leader again (elections take seconds here)
    Applied retried = RatisTestCluster.get(listener.propose(stuck));
    assertThat(retried.outcome()).isInstanceOf(Outcome.WalCommitted.class);
    assertThat(RatisFixtures.offsetOf(retried)).isEqualTo(5);
    Applied next = RatisFixtures.commitOne(listener, stream, nextKey(), clock);
    assertThat(RatisFixtures.offsetOf(next)).isEqualTo(6);

    cluster.awaitInSync();
    assertAllAgree(cluster.leader());
    List<IndexEntry> entries = RatisFixtures.entries(listener, stream);
    assertThat(entries).extracting(IndexEntry::objectKey).doesNotHaveDuplicates().hasSize(7);
  }

  private java.time.Duration boundOf() {
    return cluster.settings("l1").proposalTimeoutBound();
  }

  /** Every running member (voters and the listener) has the same state bytes. */
  private void assertAllAgree(RatisMetastore reference) {
    cluster.awaitInSync();
    byte[] expected = reference.stateSnapshotBytes();
    for (RatisMetastore m : cluster.members()) {
      assertThat(m.appliedIndex()).as(m.peerId()).isEqualTo(reference.appliedIndex());
      assertThat(m.stateSnapshotBytes()).as(m.peerId()).isEqualTo(expected);
    }
  }
}
