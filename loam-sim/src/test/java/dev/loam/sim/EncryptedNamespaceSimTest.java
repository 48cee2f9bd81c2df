package dev.loam.sim;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Seeds run with the namespace encrypted (docs/security.md, "Data at rest"): every chunk the
 * workload writes is sealed, every read opens sealed chunks (tail cache on or off, as the seed
 * draws), and the same invariants hold as for a plain namespace: no acknowledged record lost,
 * offsets dense and in order, idempotent producers without duplicates, committed offsets kept. The
 * runs replay exactly, keys and nonces included.
 */
class EncryptedNamespaceSimTest {
  static final Simulation.Config ENCRYPTED = Simulation.Config.defaults().withEncryption();

  @Test
  void encryptedSeedsKeepTheInvariants() {
    long sealed = 0;
    for (long seed : new long[] {1, 2, 7, 26, 321}) {
      Simulation.Result r = new Simulation(seed, ENCRYPTED).run();
      assertThat(r.violations()).as(r.report()).isEmpty();
      assertThat(r.counts().get("acked")).as(r.report()).isGreaterThan(0L);
      assertThat(r.counts().get("recordsReadBack")).as(r.report()).isGreaterThan(0L);
      // Retention and GC may have removed a seed's objects by the end; across seeds some remain.
      sealed += r.counts().get("walObjectsSealed");
    }
    assertThat(sealed).as("WAL objects with sealed chunks left after the runs").isPositive();
  }

  @Test
  void anEncryptedRunReplaysExactly() {
    Simulation.Result a = new Simulation(5, ENCRYPTED).run();
    Simulation.Result b = new Simulation(5, ENCRYPTED).run();
    assertThat(b.traceHash()).as(a.report()).isEqualTo(a.traceHash());
    assertThat(a.traceHash())
        .isNotEqualTo(new Simulation(5, Simulation.Config.defaults()).run().traceHash());
  }
}
