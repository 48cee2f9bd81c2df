package dev.loam.sim.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.BlockingOnLoamThreadException;
import dev.loam.api.StreamSpec;
import dev.loam.sim.HostContext;
import dev.loam.sim.HostWorkload;
import dev.loam.sim.Simulation;
import dev.loam.sim.runner.SimSeeds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The host hook of the simulation: blocking refused, await confined, violations reported. */
class HostWorkloadSimTest {
  static final Simulation.Config SHORT = new Simulation.Config(3, Duration.ofSeconds(3), 3, false);

  @Test
  @Timeout(120)
  void aHostJoinInsideTheSimulationFailsAtOnceAndIsAViolation() {
    List<Throwable> thrown = new ArrayList<>();
    HostWorkload blocking =
        new HostWorkload() {
          @Override
          public void setup(HostContext host) {
            host.await(host.anyLog().orElseThrow().createNamespaceIfAbsent("shop"));
            host.await(
                host.anyLog()
                    .orElseThrow()
                    .createStreamIfAbsent("shop", "orders", StreamSpec.standard(1)));
          }

          @Override
          public void start(HostContext host) {
            host.scheduler()
                .schedule(
                    () -> {
                      try {
                        host.anyLog()
                            .orElseThrow()
                            .append("shop", "orders", List.of(AppendRecord.of("k", "v")))
                            .join(); // would wait forever: only this thread runs the scheduler
                      } catch (RuntimeException e) {
                        thrown.add(e); // even swallowed, the run reports it
                      }
                    },
                    100,
                    TimeUnit.MILLISECONDS);
          }
        };
    Simulation.Result r = new Simulation(3, SHORT, blocking).run();
    assertThat(thrown).singleElement().isInstanceOf(BlockingOnLoamThreadException.class);
    assertThat(r.ok()).isFalse();
    assertThat(r.violations())
        .anyMatch(
            v ->
                v.contains("a blocking wait on the simulation's thread was refused")
                    && v.contains("join()")
                    && v.contains("simulation seed=3"));
    assertThat(r.counts().get("blockingWaitsRefused")).isEqualTo(1L);
    assertThat(r.report()).contains("-Dloam.sim.seed=3");
  }

  @Test
  void awaitIsRefusedDuringTheWorkload() {
    HostWorkload awaiting =
        new HostWorkload() {
          @Override
          public void start(HostContext host) {
            host.await(host.anyLog().orElseThrow().listNamespaces());
          }
        };
    assertThatThrownBy(() -> new Simulation(4, SHORT, awaiting).run())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("HostContext.await is for HostWorkload.setup and validate");
  }

  @Test
  void aHostViolationFailsTheSeedWithItsReplay() {
    HostWorkload strict =
        new HostWorkload() {
          @Override
          public void validate(HostContext host) {
            host.violation("the host's invariant id=7");
          }
        };
    assertThatThrownBy(() -> SimSeeds.check(1, seed -> new Simulation(seed, SHORT, strict)))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("1 of 1 seeds failed")
        .hasMessageContaining("host: the host's invariant id=7")
        .hasMessageContaining("-Dloam.sim.seed=1");
  }

  @Test
  void aHostWorkloadReplaysExactly() {
    Simulation.Result a = new Simulation(9, SHORT, new OrderServiceSimTest.OrderService()).run();
    Simulation.Result b = new Simulation(9, SHORT, new OrderServiceSimTest.OrderService()).run();
    assertThat(a.ok()).as(a.report()).isTrue();
    assertThat(b.traceHash()).isEqualTo(a.traceHash());
    // Without a host part the run is the harness's own, unchanged.
    assertThat(new Simulation(9, SHORT, HostWorkload.NONE).run().traceHash())
        .isEqualTo(new Simulation(9, SHORT).run().traceHash());
  }
}
