package dev.loam.sim.actor;

import dev.loam.api.LoamNode;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimMetastore;
import dev.loam.sim.SimObjectStore;
import dev.loam.sim.SimStream;
import dev.loam.sim.check.Checker;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The faults of a run (docs/design/simulation.md "Faults"). It switches the per-call faults of the
 * store, the express zones and the metastore on and off (their probabilities are drawn with the
 * run's settings from the seed's plan stream), and schedules the faults of the run itself: node
 * crashes and restarts, metastore leader changes, process pauses, slot changes, stream transfers, a
 * zone outage, a graceful leave and a clock step of ±90 s on one node. That schedule is drawn from
 * the seed's fault stream before the workload starts, and written to the run's fault schedule.
 */
public final class Nemesis {
  private final SimContext ctx;
  private final SimCluster cluster;
  private final SimObjectStore store;
  private final SimMetastore meta;
  private final List<SimObjectStore> zones;
  private final List<SimStream> streams;
  private final Checker checker;
  private final SplittableRandom faultRandom;
  private final int nodeCount;

  /**
   * @param zones the three zonal stores of the express class, or empty
   * @param faultRandom the seed's fault stream
   * @param nodeCount the nodes {@code n0 .. n<nodeCount-1>} the faults pick from
   */
  public Nemesis(
      SimContext ctx,
      SimCluster cluster,
      SimObjectStore store,
      SimMetastore meta,
      List<SimObjectStore> zones,
      List<SimStream> streams,
      Checker checker,
      SplittableRandom faultRandom,
      int nodeCount) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.store = store;
    this.meta = meta;
    this.zones = zones;
    this.streams = streams;
    this.checker = checker;
    this.faultRandom = faultRandom;
    this.nodeCount = nodeCount;
  }

  /** Switches the per-call faults of the store, the zones and the metastore on or off. */
  public void perCallFaults(boolean on) {
    store.setFaultsEnabled(on);
    meta.setFaultsEnabled(on);
    zones.forEach(z -> z.setFaultsEnabled(on));
  }

  /** Healing: the per-call faults stop and a zone that is down comes back. */
  public void stop() {
    perCallFaults(false);
    zones.forEach(z -> z.setDown(false));
  }

  /** Draws and schedules every fault at a time within the workload. */
  public void schedule(Duration workload) {
    long workloadMillis = workload.toMillis();
    int crashes = faultRandom.nextInt(4);
    for (int i = 0; i < crashes; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long down = 200 + faultRandom.nextInt(5_000);
      String id = "n" + faultRandom.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms crash " + id + " for " + down + "ms");
      scheduleAt(at, () -> cluster.crash(id, down));
    }
    int leaderChanges = faultRandom.nextInt(3);
    for (int i = 0; i < leaderChanges; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long election = 50 + faultRandom.nextInt(2_000);
      ctx.planned("t+" + at + "ms metastore leader change, election " + election + "ms");
      scheduleAt(at, () -> meta.leaderChange(election));
    }
    scheduleOwnershipFaults(workloadMillis);
    if (faultRandom.nextInt(3) == 0) {
      long at = faultRandom.nextLong(workloadMillis);
      Duration skew = Duration.ofSeconds(faultRandom.nextBoolean() ? 90 : -90);
      String id = "n" + faultRandom.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms clock of " + id + " steps by " + skew.toSeconds() + "s");
      scheduleAt(
          at,
          () -> {
            cluster.stepClock(id, skew);
            ctx.count("clockSteps");
            ctx.trace().add("clock step " + id + " " + skew);
          });
      if (at % 2 == 0) {
        // Half of the stepped clocks step back to the true time 5-25 s later (an NTP correction
        // after a bad step): the second step goes the other way. Derived from `at`, not drawn, so
        // the fault plan of every other seed stays as it was.
        long back = at + 5_000 + at % 20_000;
        ctx.planned("t+" + back + "ms clock of " + id + " steps back to the true time");
        scheduleAt(
            back,
            () -> {
              cluster.stepClock(id, Duration.ZERO);
              ctx.count("clockSteps");
              ctx.trace().add("clock step " + id + " back to 0");
            });
      }
    }
  }

  private void scheduleOwnershipFaults(long workloadMillis) {
    long liveness = cluster.ownershipSettings().livenessTimeout().toMillis();
    int pauses = faultRandom.nextInt(3);
    for (int i = 0; i < pauses; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      long length = 500 + faultRandom.nextLong(2 * liveness);
      String id = "n" + faultRandom.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms pause " + id + " for " + length + "ms (stops renewing)");
      scheduleAt(at, () -> cluster.pause(id, length));
    }
    int slotChanges = faultRandom.nextInt(4);
    for (int i = 0; i < slotChanges; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      String id = "n" + faultRandom.nextInt(nodeCount);
      int slots = faultRandom.nextInt(4);
      ctx.planned("t+" + at + "ms slots of " + id + " := " + slots);
      scheduleAt(at, () -> setSlots(id, slots));
    }
    int transfers = faultRandom.nextInt(4);
    for (int i = 0; i < transfers; i++) {
      long at = faultRandom.nextLong(workloadMillis);
      SimStream st = streams.get(faultRandom.nextInt(streams.size()));
      String to = "n" + faultRandom.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms transfer " + st.name() + " to " + to);
      scheduleAt(at, () -> transfer(st, to));
    }
    if (!zones.isEmpty() && faultRandom.nextBoolean()) {
      long at = faultRandom.nextLong(workloadMillis);
      long length = 1_000 + faultRandom.nextInt(8_000);
      int z = faultRandom.nextInt(3);
      ctx.planned("t+" + at + "ms zone " + z + " down for " + length + "ms");
      scheduleAt(
          at,
          () -> {
            zones.get(z).setDown(true);
            ctx.count("zoneOutages");
            ctx.trace().add("zone down " + z);
          });
      scheduleAt(
          at + length,
          () -> {
            zones.get(z).setDown(false);
            ctx.trace().add("zone up " + z);
          });
    }
    if (faultRandom.nextInt(2) == 0) {
      long at = faultRandom.nextLong(workloadMillis);
      long down = 500 + faultRandom.nextInt(5_000);
      String id = "n" + faultRandom.nextInt(nodeCount);
      ctx.planned("t+" + at + "ms graceful leave " + id + ", back after " + down + "ms");
      scheduleAt(at, () -> leave(id, down));
    }
  }

  private void scheduleAt(long millis, Runnable fault) {
    ctx.scheduler().schedule(fault, millis, TimeUnit.MILLISECONDS);
  }

  private void setSlots(String id, int slots) {
    SimCluster.Node via = cluster.liveNode();
    if (via == null) {
      return;
    }
    ctx.count("slotChanges");
    ctx.trace().add("slots " + id + " := " + slots + " via " + via.id());
    ctx.opStarted();
    via.node()
        .log()
        .setNodeSlots(id, slots)
        .whenComplete(
            (d, e) -> {
              ctx.opDone();
              ctx.trace()
                  .add("slots " + id + " " + (e == null ? "set" : "failed " + SimContext.kind(e)));
            });
  }

  /** A transfer sent to the stream's owner as this simulation's replica names it. */
  private void transfer(SimStream st, String to) {
    StreamInfo info = meta.read(r -> r.stream(SimContext.NS, st.name())).orElseThrow();
    String owner = meta.read(r -> r.ownership(info.id()).map(StreamOwnership::owner).orElse(null));
    SimCluster.Node via = owner == null ? null : cluster.byId(owner);
    if (via == null || !via.running()) {
      via = cluster.liveNode();
    }
    if (via == null) {
      return;
    }
    ctx.count("transfers");
    ctx.trace().add("transfer " + st.name() + " to " + to + " via " + via.id());
    ctx.opStarted();
    via.node()
        .log()
        .transferStream(SimContext.NS, st.name(), to)
        .whenComplete(
            (o, e) -> {
              ctx.opDone();
              String v = e == null ? "pending" : SimContext.kind(e).toString();
              ctx.trace().add("transfer " + st.name() + " " + v);
              ctx.count("transfer." + v);
            });
  }

  /** Graceful leave (LoamNode.leaveCluster), then a graceful close, then a new process later. */
  private void leave(String id, long downMillis) {
    SimCluster.Node n = cluster.byId(id);
    if (!n.running() || n.leaving()) {
      return;
    }
    LoamNode node = n.node();
    cluster.beginLeave(n);
    ctx.count("leaves");
    ctx.trace().add("node leave " + id);
    ctx.opStarted();
    node.leaveClusterAsync()
        .handle(
            (moved, e) -> {
              ctx.trace()
                  .add(
                      "node left "
                          + id
                          + " moved="
                          + moved
                          + " "
                          + (e == null ? "" : SimContext.kind(e)));
              ctx.count(e == null ? "leave.deregistered" : "leave.failed." + SimContext.kind(e));
              if (e != null && n.node() == node) {
                // The metastore's faults are transient: a graceful leave retries through them.
                // (A node that crashed during its leave lost its replica: its leave may fail.)
                checker.violation(
                    "graceful leave failed node=" + id + " kind=" + SimContext.kind(e));
              }
              return node.closeAsync();
            })
        .thenCompose(f -> f)
        .whenComplete(
            (v, e) -> {
              ctx.opDone();
              if (n.node() != node) {
                return; // crashed (and maybe restarted) meanwhile
              }
              ctx.trace().add("node closed " + id);
              cluster.closed(n);
              cluster.restartAfter(n, downMillis);
            });
  }
}
