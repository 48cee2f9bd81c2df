package dev.loam.meta.ratis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.testing.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One replica whose wall clock stepped two minutes ahead (an NTP step, a bad host clock) in a
 * 3-voter Ratis group over loopback: the leader refuses its proposals stamped more than {@code
 * maxFutureStamp} ahead of the leader's own clock, before logging them, so the metastore clock —
 * the highest stamp applied, which judges stale commits, node liveness and consumer leases for
 * every node — does not jump for everyone. The proposing replica's own check cannot catch this: its
 * clock is the fast one.
 */
class RatisFutureStampIT {
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
  void theLeaderRefusesProposalsStampedAheadOfItsClockFromAReplicaWhoseClockSteppedAhead() {
    cluster =
        RatisTestCluster.start(
            dir,
            3,
            MetaSettings.defaults(),
            clock,
            executor,
            b -> b.electionTimeout(Duration.ofMillis(1_000), Duration.ofMillis(2_000)));
    RatisMetastore leader = cluster.leader();
    String fast = null;
    for (String id : cluster.ids()) {
      if (cluster.member(id) != leader) {
        fast = id;
      }
    }
    InstantSource ahead = () -> Instant.ofEpochMilli(clock.millis() + 120_000);
    cluster.stop(fast);
    RatisMetastore skewed = cluster.start(fast, ahead);
    cluster.awaitInSync();
    leader = cluster.leader();
    assertThat(leader).as("the restarted replica did not take the lead").isNotSameAs(skewed);
    Origin honest = new Origin("n1", 1, clock.millis());
    assertThat(
            RatisTestCluster.get(leader.propose(new RegisterNode(honest, "h:1", 1, "z"))).outcome())
        .isInstanceOf(Outcome.NodeRegistered.class);
    cluster.awaitInSync();
    long before = leader.appliedIndex();
    long clockBefore = leader.read(MetaReader::clockMillis);

    // Stamped with the fast replica's clock, proposed through it: refused by the leader.
    Applied refused =
        RatisTestCluster.get(
            skewed.propose(new CreateNamespace(new Origin("n1", 1, ahead.millis()), "ahead")));
    assertThat(refused.outcome()).isInstanceOf(Outcome.Rejected.class);
    Outcome.Rejected r = (Outcome.Rejected) refused.outcome();
    assertThat(r.reason()).isEqualTo(Outcome.RejectReason.FUTURE_STAMP);
    assertThat(r.message()).contains("leaderClock=" + clock.millis()).contains("node=n1");
    cluster.awaitInSync();
    for (RatisMetastore m : cluster.members()) {
      assertThat(m.appliedIndex()).as("nothing was logged").isEqualTo(before);
      assertThat(m.read(MetaReader::clockMillis)).isEqualTo(clockBefore);
      assertThat(m.read((MetaReader x) -> x.namespaceExists("ahead"))).isFalse();
    }

    // Within the tolerance the same replica's proposals apply, and an honest one still does.
    Applied near =
        RatisTestCluster.get(
            skewed.propose(
                new CreateNamespace(new Origin("n1", 1, clock.millis() + 30_000), "near")));
    assertThat(near.outcome()).isInstanceOf(Outcome.NamespaceCreated.class);
    Applied ok =
        RatisTestCluster.get(
            leader.propose(new CreateNamespace(new Origin("n1", 1, clock.millis()), "ok")));
    assertThat(ok.outcome()).isInstanceOf(Outcome.NamespaceCreated.class);
    assertThat(ok.index()).isEqualTo(before + 2);
  }

  @Test
  void aReplicaWhoseClockSteppedBackStillProposesStampsOfTheTrueTime() {
    cluster =
        RatisTestCluster.start(
            dir,
            3,
            MetaSettings.defaults(),
            clock,
            executor,
            b -> b.electionTimeout(Duration.ofMillis(1_000), Duration.ofMillis(2_000)));
    RatisMetastore leader = cluster.leader();
    String slow = null;
    for (String id : cluster.ids()) {
      if (cluster.member(id) != leader) {
        slow = id;
      }
    }
    InstantSource behind = () -> Instant.ofEpochMilli(clock.millis() - 300_000);
    cluster.stop(slow);
    RatisMetastore stepped = cluster.start(slow, behind);
    cluster.awaitInSync();
    assertThat(
            RatisTestCluster.get(
                    leader.propose(
                        new RegisterNode(new Origin("n1", 1, clock.millis()), "h:1", 1, "z")))
                .outcome())
        .isInstanceOf(Outcome.NodeRegistered.class);
    RatisTestCluster.get(stepped.awaitApplied(leader.appliedIndex()));

    // A renewal's stamp never falls behind the metastore clock (OwnershipAgent), so a node whose
    // clock stepped back proposes stamps minutes ahead of its own clock: they are the true time
    // and apply. Judged against its own clock alone, every one of them was refused, and the
    // node was declared dead while running.
    Applied a =
        RatisTestCluster.get(
            stepped.propose(new CreateNamespace(new Origin("n1", 1, clock.millis()), "true")));
    assertThat(a.outcome()).isInstanceOf(Outcome.NamespaceCreated.class);
    // Still refused: a stamp more than 60 s ahead of the true time.
    Applied ahead =
        RatisTestCluster.get(
            stepped.propose(
                new CreateNamespace(new Origin("n1", 1, clock.millis() + 61_000), "ahead")));
    assertThat(ahead.outcome()).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) ahead.outcome()).reason())
        .isEqualTo(Outcome.RejectReason.FUTURE_STAMP);
  }
}
