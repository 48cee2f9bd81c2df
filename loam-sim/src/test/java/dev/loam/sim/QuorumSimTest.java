package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Quorum streams in the simulation (docs/design/simulation.md "Quorum streams"): seeds that draw a
 * quorum stream run the real node host, placement driver, seal agent and journal state machine on
 * the simulated Raft, through journal leader crashes, pauses and lost or held-back journal
 * messages, and are judged by the invariants of every stream.
 */
class QuorumSimTest {
  /** Seeds among the first twenty that draw a quorum stream. */
  private static final long[] QUORUM_SEEDS = {5, 8, 9, 12, 17, 19};

  @Test
  void quorumSeedsKeepTheInvariantsThroughJournalFaults() {
    long acked = 0;
    long elections = 0;
    long leaderCrashes = 0;
    long lost = 0;
    long seals = 0;
    for (long seed : QUORUM_SEEDS) {
      Simulation.Result r = Simulation.run(seed);
      assertThat(r.faultSchedule()).as(r.report()).anyMatch(l -> l.contains("quorum=true"));
      assertThat(r.violations()).as(r.report()).isEmpty();
      assertThat(r.counts().getOrDefault("quorum.acked", 0L)).as(r.report()).isPositive();
      acked += r.counts().getOrDefault("quorum.acked", 0L);
      elections += r.counts().getOrDefault("journal.elections", 0L);
      leaderCrashes += r.counts().getOrDefault("journal.fault.leaderCrash", 0L);
      lost += r.counts().getOrDefault("journal.msgLost", 0L);
      seals += r.counts().getOrDefault("quorum.seals", 0L);
    }
    assertThat(acked).isGreaterThan(1_000);
    assertThat(elections).isGreaterThan(QUORUM_SEEDS.length);
    assertThat(leaderCrashes).isGreaterThanOrEqualTo(QUORUM_SEEDS.length);
    assertThat(lost).isPositive();
    assertThat(seals).isPositive();
  }

  @Test
  void aQuorumSeedReplays() {
    assertThat(Simulation.run(5).traceHash()).isEqualTo(Simulation.run(5).traceHash());
  }
}
