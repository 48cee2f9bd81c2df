package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.sim.quorum.SimRaft;
import org.junit.jupiter.api.Test;

/**
 * The checks catch a broken replication protocol under the quorum stream: each test breaks one of
 * Raft's safety rules in the simulated journal and runs a seed that then fails. Besides the model's
 * own state machine safety check, the invariants of every stream catch it: acknowledged records
 * lost or two records at one offset. Of the quorum seeds among 1..40 (5, 8, 9, 12, 17, 19, 21, 23,
 * 30, 31, 32, 38), a commit on the leader's own sync fails 31 and 38, and votes without the
 * up-to-date rule fail 5, 21 and 31; with Raft's rules every one of them passes. (Which seeds catch
 * a broken rule moves with the rest of the system: a fetch past a replica's end now waits instead
 * of failing, which changed these runs' schedules.)
 */
class QuorumBrokenRaftTest {
  @Test
  void committingOnTheLeadersOwnSyncLosesAcknowledgedRecords() {
    Simulation.Result r = run(31, new SimRaft.Rules(false, true));
    assertThat(r.violations()).anyMatch(v -> v.contains("journal state machine safety"));
    assertThat(r.violations()).anyMatch(v -> v.contains("two records at one offset"));
    assertThat(r.counts().get("ackedLost")).isPositive();
  }

  @Test
  void votingWithoutTheUpToDateRuleLosesAcknowledgedRecords() {
    Simulation.Result r = run(5, new SimRaft.Rules(true, false));
    assertThat(r.violations()).anyMatch(v -> v.contains("journal state machine safety"));
    assertThat(r.counts().get("ackedLost")).isPositive();
  }

  @Test
  void withRaftsRulesTheSameSeedsPass() {
    for (long seed : new long[] {5, 31}) {
      Simulation.Result r = run(seed, SimRaft.Rules.raft());
      assertThat(r.violations()).as(r.report()).isEmpty();
    }
  }

  private static Simulation.Result run(long seed, SimRaft.Rules rules) {
    Simulation.Result r =
        new Simulation(seed, Simulation.Config.defaults(), HostWorkload.NONE, rules).run();
    assertThat(r.faultSchedule()).anyMatch(l -> l.contains("quorum=true"));
    return r;
  }
}
