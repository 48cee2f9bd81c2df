package dev.loam.sim;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.MetastoreContractTest;
import java.time.InstantSource;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The conformance kit run against {@link SimMetastore} with faults off: the metastore the
 * simulation trusts is held to the same contract as the embedded and Ratis ones (STYLE.md §2).
 *
 * <p>Nothing runs the {@link SimScheduler} but this thread, so {@link #await} drives it until the
 * future completes. Before that it moves simulated time up to the kit's clock: the kit stamps
 * commands with its own clock and advances it, and the future-stamp check compares stamps with the
 * simulated time.
 */
class SimMetastoreContractTest extends MetastoreContractTest {
  private static final long MAX_STEPS = 1_000_000;

  private InstantSource kitClock;
  private SimScheduler scheduler;

  @Override
  protected Metastore open(MetaSettings settings, InstantSource clock) {
    kitClock = clock;
    SimClock simClock = new SimClock(clock.millis());
    scheduler = new SimScheduler(simClock);
    SimMetastore m =
        new SimMetastore(
            scheduler,
            new SplittableRandom(42),
            SimMetastore.Faults.none(),
            settings,
            new Trace(simClock));
    m.setFaultsEnabled(false);
    return m;
  }

  /**
   * SimMetastore gives each proposal its own random latency (1 to 5 ms) on the way to the leader,
   * so proposals from one thread can be applied out of proposal order: what a replicated log may do
   * (the SPI does not promise that order), and what the simulation wants callers tested against.
   */
  @Override
  protected boolean keepsOneThreadsProposalOrder() {
    return false;
  }

  @Override
  protected <T> T await(CompletableFuture<T> f) {
    long kitNanos = TimeUnit.MILLISECONDS.toNanos(kitClock.millis());
    if (scheduler.clock().nanos() < kitNanos) {
      scheduler.clock().advanceTo(kitNanos);
    }
    if (!scheduler.runUntil(f::isDone, MAX_STEPS)) {
      throw new AssertionError(
          "simulated metastore did not answer queued=" + scheduler.queued() + " future=" + f);
    }
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
