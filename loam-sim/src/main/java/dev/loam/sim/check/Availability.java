package dev.loam.sim.check;

import dev.loam.api.AppendResult;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.TrimPartition;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimMetastore;
import dev.loam.sim.SimStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Whether the cluster stays available, for owner-bound work and for the data inside retention
 * (docs/design/simulation.md "Invariants"):
 *
 * <ul>
 *   <li>a stream whose owner died or left is open again within twice the liveness timeout plus 10
 *       s, and after healing every stream is open by a running node at its current epoch; the
 *       longest owner gap, the longest revival and the longest gap between two acknowledgements are
 *       reported;
 *   <li>a time trim never drops a record younger than the retention (by a true clock), and no trim
 *       moves the log start beyond the high watermark;
 *   <li>OffsetOutOfRange is right only below the log start or above the high watermark.
 * </ul>
 */
public final class Availability {
  private final SimContext ctx;
  private final SimMetastore meta;
  private final Checker checker;
  private final OwnershipChecker ownershipChecker;
  private final SimCluster cluster;
  private final List<SimStream> streams;
  private final History history;
  private final Map<Long, Long> unavailableSince = new HashMap<>();
  private final Map<Long, Long> closedSince = new HashMap<>();
  private long maxOwnerGapNanos;
  private long maxRevivalNanos;
  private long lastAckNanos;
  private long maxAckGapNanos;
  private boolean healing;

  /**
   * @param streams the run's streams; filled during setup, read only afterwards
   */
  public Availability(
      SimContext ctx,
      SimMetastore meta,
      Checker checker,
      OwnershipChecker ownershipChecker,
      SimCluster cluster,
      List<SimStream> streams,
      History history) {
    this.ctx = ctx;
    this.meta = meta;
    this.checker = checker;
    this.ownershipChecker = ownershipChecker;
    this.cluster = cluster;
    this.streams = streams;
    this.history = history;
  }

  /** The longest time a stream was not open by a running owner at its owner epoch. */
  public long maxOwnerGapNanos() {
    return maxOwnerGapNanos;
  }

  /** The longest time a closed stream took to open again. */
  public long maxRevivalNanos() {
    return maxRevivalNanos;
  }

  /** The longest gap between two acknowledged appends during the workload. */
  public long maxAckGapNanos() {
    return maxAckGapNanos;
  }

  /** The workload begins: the gap between acknowledgements is measured from now. */
  public void workloadStarted() {
    lastAckNanos = ctx.clock().nanos();
  }

  /** Healing begins: acknowledgements from now on no longer count towards the ack gap. */
  public void healingStarted() {
    healing = true;
  }

  /** An append was acknowledged now. */
  public void acknowledged() {
    if (!healing) {
      long now = ctx.clock().nanos();
      maxAckGapNanos = Math.max(maxAckGapNanos, now - lastAckNanos);
      lastAckNanos = now;
    }
  }

  /**
   * A stream is available for owner-bound work when it is OPEN by a node that is running at the
   * owner epoch; the longest gap is reported, and a stream whose owner died or left must be open
   * again within twice the liveness timeout plus 10 s.
   */
  /** The nodes the replicated state holds live and with slots: placement's candidates. */
  private java.util.Set<String> placeable() {
    java.util.Set<String> out = new java.util.HashSet<>();
    for (OwnershipChecker.NodeView v : ownershipChecker.current().nodes().values()) {
      if (v.live() && v.slots() >= 1) {
        out.add(v.id());
      }
    }
    return out;
  }

  public void trackAvailability() {
    long now = ctx.clock().nanos();
    for (StreamOwnership o : ownershipChecker.current().owners().values()) {
      boolean available = heldByRunningOwner(o);
      Long since = unavailableSince.get(o.streamId());
      if (available && since != null) {
        unavailableSince.remove(o.streamId());
        maxOwnerGapNanos = Math.max(maxOwnerGapNanos, now - since);
      } else if (!available && since == null) {
        unavailableSince.put(o.streamId(), now);
      }
      Long closed = closedSince.get(o.streamId());
      if (o.state() == StreamOwnership.State.CLOSED
          && (closed == null || !cluster.someNodeCanOwn(placeable()))) {
        // The revival bound runs from when some node could revive the stream: while every node
        // is down, paused, leaving, out of placement (no slots) or refused for a clock ahead of
        // the metastore's, nobody can, and the wait is the nemesis's doing.
        closedSince.put(o.streamId(), now);
      } else if (o.state() == StreamOwnership.State.OPEN && closed != null) {
        closedSince.remove(o.streamId());
        long took = now - closed;
        ctx.count("own.revivals");
        maxRevivalNanos = Math.max(maxRevivalNanos, took);
        long bound = 2 * cluster.ownershipSettings().livenessTimeout().toNanos() + 10_000_000_000L;
        if (took > bound) {
          checker.violation(
              "stream revived only after "
                  + TimeUnit.NANOSECONDS.toMillis(took)
                  + "ms streamId="
                  + o.streamId());
        }
      }
    }
  }

  /** Liveness after healing: every stream open by a running node at its current epoch. */
  public void checkOpenAfterHealing() {
    for (StreamOwnership o : ownershipChecker.current().owners().values()) {
      if (!heldByRunningOwner(o)) {
        checker.violation("stream not open by a running node after healing " + o);
      }
    }
  }

  private boolean heldByRunningOwner(StreamOwnership o) {
    SimCluster.Node owner = o.owner() == null ? null : cluster.byId(o.owner());
    return o.state() == StreamOwnership.State.OPEN
        && owner != null
        && owner.running()
        && owner.node().epoch() == o.ownerEpoch();
  }

  /** A time trim never drops a record younger than the retention (by a true clock). */
  public void checkTrim(TrimPartition t, Outcome.Trimmed tr) {
    StreamInfo info = meta.read(r -> r.streamById(t.streamId())).orElse(null);
    if (info == null) {
      return;
    }
    SimStream st =
        streams.stream().filter(x -> x.name().equals(info.name())).findFirst().orElse(null);
    if (st == null) {
      return;
    }
    ctx.count("trims." + t.reason());
    long hw =
        meta.read(
            r ->
                r.partition(t.streamId(), t.partition())
                    .map(PartitionInfo::highWatermark)
                    .orElse(0L));
    if (tr.logStartOffset() > hw) {
      checker.violation("log start beyond the high watermark after a trim " + t);
    }
    if (t.reason() != TrimPartition.Reason.TIME || st.retentionMillis() < 0) {
      return;
    }
    long now = ctx.clock().nanos();
    long horizonNanos = now - TimeUnit.MILLISECONDS.toNanos(st.retentionMillis());
    for (History.Append a : history.appends()) {
      if (a.acked() == null || a.stream() != st || !a.sentUnskewed()) {
        continue;
      }
      for (AppendResult.RecordPosition pos : a.acked().positions()) {
        if (pos.partition() == t.partition()
            && pos.offset() < tr.logStartOffset()
            && a.earliestTimestampNanos() >= horizonNanos) {
          checker.violation(
              "retention dropped a record younger than retentionMillis="
                  + st.retentionMillis()
                  + " a="
                  + a.id()
                  + " offset="
                  + pos.offset()
                  + " stampedAgoMillis="
                  + TimeUnit.NANOSECONDS.toMillis(now - a.earliestTimestampNanos()));
          return;
        }
      }
    }
  }

  /** OffsetOutOfRange is right only below the log start or above the high watermark. */
  public void checkOutOfRange(SimStream st, int partition, long from, Throwable e) {
    if (!(SimContext.unwrap(e) instanceof OffsetOutOfRangeException)) {
      return;
    }
    ctx.count("fetchOutOfRange");
    PartitionInfo pi =
        meta.read(
                r ->
                    r.stream(SimContext.NS, st.name()).flatMap(s -> r.partition(s.id(), partition)))
            .orElseThrow();
    if (from >= pi.logStartOffset() && from <= pi.highWatermark()) {
      checker.violation(
          "fetch inside retention refused OffsetOutOfRange part="
              + st.name()
              + "/"
              + partition
              + " from="
              + from
              + " logStart="
              + pi.logStartOffset()
              + " hw="
              + pi.highWatermark());
    }
  }
}
