package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The simulator is itself deterministic: one seed run twice gives the same trace. */
class DeterminismSimTest {
  @Test
  void oneSeedTwiceGivesTheSameTraceHash() {
    Simulation.Result a = Simulation.run(42);
    Simulation.Result b = Simulation.run(42);
    assertThat(a.traceLines()).isGreaterThan(1_000);
    assertThat(b.traceHash()).as(a.report()).isEqualTo(a.traceHash());
    assertThat(b.steps()).isEqualTo(a.steps());
  }

  @Test
  void differentSeedsGiveDifferentTraces() {
    assertThat(Simulation.run(1).traceHash()).isNotEqualTo(Simulation.run(2).traceHash());
  }
}
