package dev.loam.sim;

import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The shape of one run as the seed's {@code plan} stream decides it: the per-call fault
 * probabilities of the stores and the metastore, the node settings (flush interval 20–250 ms, 1–4
 * objects in flight, tail cache on or off, maintenance every 2 s with an 8 KiB segment threshold
 * and a 10 s GC grace period), the ownership settings (liveness timeout 6–12 s, ownership step
 * 100–300 ms, drain 3 s) and whether the run has the three express zones.
 *
 * @param tailCache whether the nodes have a tail cache (off forces reads through the store)
 * @param express whether the run has the three zonal stores of the express class
 * @param replicaLag how late each node's metastore replica applies the leader's log (with faults:
 *     up to 0–40 ms per command, and now and then a stall of up to 0.2–3 s; none without)
 * @param quorum whether the run has a quorum stream, its journal on the simulated Raft (one seed in
 *     three)
 * @param journalFaults the journal network's per-message faults (with faults and a quorum stream:
 *     up to 3% of messages lost, up to 5% held back by up to 0.05–1 s)
 */
record Scenario(
    SimObjectStore.Faults storeFaults,
    SimMetastore.Faults metaFaults,
    boolean tailCache,
    OwnershipSettings ownership,
    NodeSettings settings,
    boolean express,
    SimReplica.Lag replicaLag,
    boolean diskCache,
    boolean quorum,
    dev.loam.sim.quorum.SimRaft.Faults journalFaults) {

  /** Draws a scenario; without faults the probabilities are zero, the settings still drawn. */
  static Scenario draw(SplittableRandom plan, boolean faults) {
    SimObjectStore.Faults sf =
        faults
            ? new SimObjectStore.Faults(
                plan.nextDouble() * 0.10,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.02,
                500 + plan.nextInt(5_000))
            : SimObjectStore.Faults.none();
    SimMetastore.Faults mf =
        faults
            ? new SimMetastore.Faults(
                plan.nextDouble() * 0.10,
                plan.nextDouble() * 0.03,
                plan.nextDouble() * 0.05,
                plan.nextDouble() * 0.05,
                200 + plan.nextInt(3_000))
            : SimMetastore.Faults.none();
    boolean tailCache = plan.nextBoolean();
    OwnershipSettings ownership =
        new OwnershipSettings(
            Duration.ofMillis(6_000 + plan.nextInt(6_000)),
            Duration.ofMillis(100 + plan.nextInt(200)),
            Duration.ofSeconds(3));
    // Drawn in this order (flush interval, then objects in flight): the seed's trace depends on it.
    Duration flushInterval = Duration.ofMillis(20 + plan.nextInt(230));
    int objectsInFlight = 1 + plan.nextInt(4);
    NodeSettings settings =
        NodeSettings.builder()
            .standardFlushInterval(flushInterval)
            .walObjectMaxBytes(1 << 20)
            .maxObjectsInFlight(objectsInFlight)
            .maxBufferedBytes(8L << 20)
            .tailCacheBytes(tailCache ? 64L << 10 : 0)
            .maxWaitingFetches(10_000)
            .maintenanceInterval(Duration.ofSeconds(2))
            .segmentThresholdBytes(8L << 10)
            .segmentMaxBytes(64L << 10)
            .segmentEntryMaxBytes(1 << 10)
            .gcGracePeriod(Duration.ofSeconds(10))
            .build();
    boolean express = plan.nextBoolean();
    // Drawn last, so that every earlier draw of a seed is what it was before replicas lagged.
    SimReplica.Lag lag =
        faults
            ? new SimReplica.Lag(
                plan.nextInt(41), plan.nextDouble() * 0.002, 200 + plan.nextInt(2_800))
            : SimReplica.Lag.none();
    // Drawn after the lag, for the same reason: several commit proposals in flight per writer.
    settings = settings.withCommitsInFlight(1 + plan.nextInt(4));
    // Then, for the same reason again: one seed in three reads through a disk cache per node.
    boolean diskCache = plan.nextInt(3) == 0;
    // Then, last again: one seed in three runs a quorum stream, with its journal network's faults.
    boolean quorum = plan.nextInt(3) == 0;
    dev.loam.sim.quorum.SimRaft.Faults jf =
        quorum && faults
            ? new dev.loam.sim.quorum.SimRaft.Faults(
                plan.nextDouble() * 0.03, plan.nextDouble() * 0.05, 50 + plan.nextInt(950))
            : dev.loam.sim.quorum.SimRaft.Faults.none();
    return new Scenario(
        sf, mf, tailCache, ownership, settings, express, lag, diskCache, quorum, jf);
  }

  /** The fault schedule's first line. */
  String faultsLine() {
    return "faults "
        + storeFaults
        + " "
        + metaFaults
        + " "
        + replicaLag
        + (quorum ? " " + journalFaults : "");
  }

  /** The fault schedule's second line. */
  String settingsLine() {
    return "settings flush="
        + settings.standardFlushInterval().toMillis()
        + "ms inFlight="
        + settings.maxObjectsInFlight()
        + " commitsInFlight="
        + settings.maxCommitsInFlight()
        + " tailCache="
        + tailCache
        + " liveness="
        + ownership.livenessTimeout().toMillis()
        + "ms tick="
        + ownership.tickInterval().toMillis()
        + "ms express="
        + express
        + " diskCache="
        + diskCache
        + (quorum ? " quorum=true" : "");
  }
}
