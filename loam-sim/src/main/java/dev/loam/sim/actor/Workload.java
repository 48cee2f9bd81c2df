package dev.loam.sim.actor;

import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimMetastore;
import dev.loam.sim.SimObjectStore;
import dev.loam.sim.SimStream;
import dev.loam.sim.check.Availability;
import dev.loam.sim.check.Checker;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The client operation mix, one operation every 1–20 ms until the workload ends: 45 % plain appends
 * and 25 % idempotent ones (by the {@link Producers}), 30 % fetches at a random offset up to the
 * high watermark, with or without a consistency token and a long-poll wait. Clients only talk to
 * running, unpaused nodes.
 *
 * <p>One draw per tick picks the operation, so the mix and the fetches live together here; every
 * fetch is checked as it returns.
 */
public final class Workload {
  private final SimContext ctx;
  private final SimCluster cluster;
  private final SimMetastore meta;
  private final SimObjectStore store;
  private final SplittableRandom workRandom;
  private final List<SimStream> streams;
  private final Producers producers;
  private final Checker checker;
  private final Availability availability;
  private long endNanos;

  /**
   * @param workRandom the workload's stream, shared with the other clients in draw order
   */
  public Workload(
      SimContext ctx,
      SimCluster cluster,
      SimMetastore meta,
      SimObjectStore store,
      SplittableRandom workRandom,
      List<SimStream> streams,
      Producers producers,
      Checker checker,
      Availability availability) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.meta = meta;
    this.store = store;
    this.workRandom = workRandom;
    this.streams = streams;
    this.producers = producers;
    this.checker = checker;
    this.availability = availability;
  }

  /** Schedules the first tick; no operation starts at or after {@code endNanos}. */
  public void start(long endNanos) {
    this.endNanos = endNanos;
    scheduleTick();
  }

  private void scheduleTick() {
    ctx.scheduler().schedule(this::tick, 1 + workRandom.nextInt(20), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    if (ctx.clock().nanos() >= endNanos) {
      return;
    }
    int r = workRandom.nextInt(100);
    if (r < 45) {
      producers.plainAppend();
    } else if (r < 70) {
      producers.idempotentAppend();
    } else {
      fetch();
    }
    scheduleTick();
  }

  private void fetch() {
    SimCluster.Node n = cluster.liveNode();
    if (n == null) {
      return;
    }
    SimStream st = streams.get(workRandom.nextInt(streams.size()));
    int partition = workRandom.nextInt(st.partitions());
    Checker.Part part = new Checker.Part(st.name(), partition);
    long hw =
        meta.read(
            r ->
                r.stream(SimContext.NS, st.name())
                    .flatMap(s -> r.partition(s.id(), partition))
                    .map(PartitionInfo::highWatermark)
                    .orElse(0L));
    long from = hw == 0 ? 0 : workRandom.nextLong(hw + 1);
    Duration wait =
        workRandom.nextBoolean() ? Duration.ZERO : Duration.ofMillis(workRandom.nextInt(2000));
    int maxBytes = 512 + workRandom.nextInt(64 << 10);
    OptionalLong token =
        workRandom.nextBoolean() ? OptionalLong.of(meta.appliedIndex()) : OptionalLong.empty();
    ctx.trace().add("fetch node=" + n.id() + " part=" + part + " from=" + from);
    ctx.opStarted();
    n.node()
        .log()
        .fetch(SimContext.NS, st.name(), partition, from, maxBytes, wait, token)
        .whenComplete(
            (res, e) -> {
              ctx.opDone();
              if (e != null) {
                Kind k = SimContext.kind(e);
                ctx.trace().add("fetch failed part=" + part + " kind=" + k);
                ctx.count("fetchFailed." + k);
                if (k == Kind.CORRUPTION
                    || (k == Kind.INTERNAL && store.faults().missingRead() == 0)) {
                  checker.violation("fetch failed kind=" + k + " part=" + part + " " + e);
                }
                availability.checkOutOfRange(st, partition, from, e);
                return;
              }
              ctx.trace().add("fetched part=" + part + " n=" + res.records().size());
              checker.checkFetch(part, from, res, "fetch node=" + n.id());
              if (token.isPresent()) {
                checker.checkReadYourWrites(part, token.getAsLong(), res, "fetch node=" + n.id());
              }
            });
  }
}
