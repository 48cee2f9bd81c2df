package dev.loam.core.ownership;

import dev.loam.api.NotOwnerException;
import dev.loam.api.OwnershipSettings;
import dev.loam.core.NodeContext;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.TransferStream;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's part in stream ownership (ownership-and-routing.txt): it renews the node's
 * registration, declares silent nodes dead, claims the streams placement gives it, and acquires a
 * stream before any owner-bound command, which then travels {@link OwnerFenced} with the stream
 * epoch. Owns no thread: {@link #tick()} is driven by the node's scheduler (or a test), and the
 * other methods are called by the requests that need them.
 */
public final class OwnershipAgent {
  private static final Logger log = LoggerFactory.getLogger(OwnershipAgent.class);

  /** Owner-bound attempts per request: a race with another node's open or placement. */
  private static final int MAX_ROUTE_ATTEMPTS = 4;

  /** How often a leaving node looks whether its transfers completed. */
  private static final long DRAIN_POLL_MILLIS = 50;

  /** Attempts per leave step: a metastore election lasts a few seconds. */
  private static final int LEAVE_ATTEMPTS = 20;

  /** Pause between attempts of a leave step. */
  private static final long LEAVE_RETRY_MILLIS = 200;

  private final String nodeId;
  private final long epoch;
  private final Metastore meta;
  private final InstantSource clock;
  private final OwnershipSettings settings;
  private final Supplier<RegisterNode> registration;
  private final NodeContext ctx;
  private final ScheduledExecutorService scheduler;
  private final AtomicBoolean ticking = new AtomicBoolean();
  private volatile long lastRenewMillis;
  // The renewal in flight, if any, and when it was proposed (tick() and Maintenance may both call).
  private volatile boolean renewing;
  private volatile long renewStartedMillis;
  private volatile boolean renewedOnce;

  /** The last renewal's stamp and this node's clock when it was taken ({@link #renewalStamp}). */
  private long lastRenewStamp = Long.MIN_VALUE;

  private long lastRenewStampLocal;
  private volatile boolean leaving;
  private volatile boolean fenced;

  public OwnershipAgent(
      NodeContext ctx, OwnershipSettings settings, Supplier<RegisterNode> registration) {
    this.ctx = ctx;
    this.scheduler = ctx.scheduler();
    this.nodeId = ctx.nodeId();
    this.epoch = ctx.epoch();
    this.meta = ctx.meta();
    this.clock = ctx.clock();
    this.settings = settings;
    this.registration = registration;
  }

  private Origin origin() {
    return ctx.origin();
  }

  // ---------------------------------------------------------------- owner-bound requests

  /**
   * Proposes {@code inner}, an owner-bound command about {@code s}, from this node as the owner:
   * acquires the stream first (placing or opening it as routing says) and sends the command with
   * the stream epoch. Fails with {@link NotOwnerException} when another node owns the stream.
   */
  public CompletableFuture<Applied> proposeOwnerBound(StreamInfo s, Command inner) {
    return acquire(s, 0)
        .thenCompose(streamEpoch -> meta.propose(new OwnerFenced(s.id(), streamEpoch, inner)))
        .thenCompose(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r
                  && r.reason() == RejectReason.NOT_OWNER) {
                // Lost the stream between acquiring and proposing (a transfer, a death verdict):
                // the owner named by the now newer view is where the request belongs.
                return CompletableFuture.failedFuture(notOwner(s, r.message()));
              }
              return CompletableFuture.completedFuture(a);
            });
  }

  /**
   * Holds {@code s} open on this node as routing says (placing, opening or reviving it first);
   * completes with the stream epoch it is open at. Fails with {@link NotOwnerException} when
   * another node owns the stream.
   */
  public CompletableFuture<Long> acquireOpen(StreamInfo s) {
    return acquire(s, 0);
  }

  /** Holds {@code s} open on this node; completes with the stream epoch. */
  CompletableFuture<Long> acquire(StreamInfo s, int attempt) {
    if (attempt >= MAX_ROUTE_ATTEMPTS) {
      return CompletableFuture.failedFuture(notOwner(s, "ownership kept moving"));
    }
    OwnerRouting.Decision d;
    try {
      d = meta.read(r -> OwnerRouting.decide(r, nodeId, epoch, s.id()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return switch (d.action()) {
      case SERVE ->
          CompletableFuture.completedFuture(
              meta.read(r -> r.ownership(s.id()).map(StreamOwnership::streamEpoch).orElse(0L)));
      case REDIRECT -> CompletableFuture.failedFuture(notOwner(s, ""));
      case PLACE ->
          proposeAndWait(new PlaceStream(origin(), s.id()))
              .thenCompose(a -> acquire(s, attempt + 1));
      case OPEN ->
          proposeAndWait(new OpenStream(origin(), s.id()))
              .thenCompose(
                  a ->
                      a.outcome() instanceof Outcome.OwnershipChanged oc
                              && nodeId.equals(oc.ownership().owner())
                              && oc.ownership().state() == StreamOwnership.State.OPEN
                          ? CompletableFuture.completedFuture(oc.ownership().streamEpoch())
                          : acquire(s, attempt + 1));
    };
  }

  /** Proposes and waits until the local replica has applied it, so the next read sees it. */
  private CompletableFuture<Applied> proposeAndWait(Command c) {
    return meta.propose(c).thenCompose(a -> meta.awaitApplied(a.index()).thenApply(v -> a));
  }

  /** The typed redirect, naming the owner (or transfer target) in this node's current view. */
  NotOwnerException notOwner(StreamInfo s, String detail) {
    return meta.read(
        r -> {
          StreamOwnership o = r.ownership(s.id()).orElse(StreamOwnership.unplaced(s.id()));
          String target = o.transferTarget() != null ? o.transferTarget() : o.owner();
          String address =
              target == null
                  ? ""
                  : r.node(target)
                      .map(NodeInfo::advertisedAddress)
                      .map(x -> x == null ? "" : x)
                      .orElse("");
          return new NotOwnerException(
              s.namespace(), s.name(), target == null ? "" : target, address, detail);
        });
  }

  // ---------------------------------------------------------------- transfers and slots

  /** Moves {@code s}, which this node must own, to {@code target}; completes when pending. */
  public CompletableFuture<StreamOwnership> transfer(StreamInfo s, String target) {
    return acquire(s, 0)
        .thenCompose(
            streamEpoch -> meta.propose(new TransferStream(origin(), s.id(), streamEpoch, target)))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.OwnershipChanged oc) {
                return oc.ownership();
              }
              Outcome.Rejected r = (Outcome.Rejected) a.outcome();
              if (r.reason() == RejectReason.NOT_OWNER) {
                throw notOwner(s, r.message());
              }
              throw new LoamException(
                  r.reason() == RejectReason.NOT_FOUND ? Kind.NOT_FOUND : Kind.INVALID,
                  r.message() + " stream=" + s.namespace() + "/" + s.name());
            });
  }

  public CompletableFuture<NodeInfo> setSlots(String node, int slots) {
    return meta.propose(new SetNodeSlots(origin(), node, slots))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.NodeRegistered nr) {
                return nr.node();
              }
              Outcome.Rejected r = (Outcome.Rejected) a.outcome();
              throw new LoamException(
                  r.reason() == RejectReason.NOT_FOUND ? Kind.NOT_FOUND : Kind.INVALID,
                  r.message());
            });
  }

  // ---------------------------------------------------------------- the periodic step

  /**
   * One ownership step: renew if due, declare silent nodes dead, claim streams placement gives this
   * node. Overlapping calls join nothing: a step in progress makes the next call a no-op for the
   * declare-and-claim part. The renewal has its own turn: a renewal, or a claim, stuck in a slow
   * proposal (a leader election, a request the network holds back) must not keep this node from
   * renewing, or the others declare a live node dead (found by loam-sim: one delayed renewal held
   * every later one back for three seconds). Never fails.
   */
  public CompletableFuture<Void> tick() {
    if (fenced) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> renewal = renewIfDue();
    if (!ticking.compareAndSet(false, true)) {
      return renewal;
    }
    CompletableFuture<Void> f;
    try {
      f = expireSilent().thenCompose(v -> claim());
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> step =
        f.handle(
            (v, t) -> {
              if (t != null) {
                log.debug("ownership step failed node={}", nodeId, t);
              }
              ticking.set(false);
              return null;
            });
    return CompletableFuture.allOf(renewal, step);
  }

  /**
   * Proposes a RenewNode when one is due and none is in flight, or when the one in flight has been
   * waiting a whole renew interval (a second renewal is harmless: the metastore records its own
   * clock, which only moves forward). Never fails.
   */
  private CompletableFuture<Void> renewIfDue() {
    long now = clock.millis();
    long since = now - lastRenewMillis;
    long interval = settings.renewInterval().toMillis();
    // A clock stepped back (NTP) makes `since` negative: renew now rather than wait for the clock
    // to catch up, or the others declare this live node dead (found by loam-sim, seed 6).
    if (renewedOnce && since >= 0 && since < interval) {
      return CompletableFuture.completedFuture(null);
    }
    long started = renewStartedMillis;
    // One renewal in flight holds the next back for one ownership step only: a proposal delayed on
    // its way to the leader must not keep this node silent for longer (found by loam-sim, seed
    // 8647: a renewal delayed 2.2 s right after a metastore election left the node 6 s without an
    // applied renewal, and it was declared dead while running).
    long retryAfter = Math.min(interval, settings.tickInterval().toMillis());
    if (renewing && now - started >= 0 && now - started < retryAfter) {
      return CompletableFuture.completedFuture(null);
    }
    renewing = true;
    renewStartedMillis = now;
    return meta.propose(new RenewNode(ctx.origin(renewalStamp(now))))
        .thenCompose(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                if (r.reason() == RejectReason.STALE_NODE_EPOCH) {
                  // A newer process claims this node id: this one is a zombie and stops claiming.
                  fenced = true;
                  log.error("node fenced by a newer registration node={} {}", nodeId, r.message());
                  return CompletableFuture.completedFuture(null);
                }
                if (r.reason() == RejectReason.FUTURE_STAMP) {
                  // Stamped ahead of the metastore leader's clock: start the next stamp from this
                  // node's clock and the metastore's again, carrying nothing.
                  forgetRenewalStamp();
                  return CompletableFuture.completedFuture(null);
                }
                if (r.reason() == RejectReason.UNKNOWN_NODE && !leaving) {
                  // Declared dead while alive (a long pause): register again at the same epoch.
                  log.warn("node was declared dead; registering again node={}", nodeId);
                  return meta.propose(registration.get()).thenApply(x -> null);
                }
                return CompletableFuture.completedFuture(null);
              }
              // A late answer of an older attempt must not move the last renewal back.
              lastRenewMillis = Math.max(lastRenewMillis, now);
              renewedOnce = true;
              return CompletableFuture.completedFuture(null);
            })
        .handle(
            (v, t) -> {
              if (t != null) {
                log.debug("renewal failed node={}", nodeId, t);
              }
              if (renewStartedMillis == now) {
                renewing = false;
              }
              return null;
            });
  }

  /**
   * The stamp of a renewal proposed at {@code now} by this node's clock: never behind the
   * metastore's clock, and moving forward by this node's elapsed time since the last renewal even
   * when its clock stepped back. The metastore's clock is the largest stamp it applied, and a
   * renewal is recorded at that clock; a node whose clock runs behind would otherwise renew without
   * moving it, and when a node with a true clock proposed again the clock would jump ahead of every
   * renewal at once, so the behind node, renewing all along, would be declared dead (found by
   * loam-sim, seed 6690: the other two nodes paused while the third's clock was 90 s behind). Equal
   * to {@code now} while the clocks agree.
   */
  private synchronized long renewalStamp(long now) {
    long metaClock;
    try {
      metaClock = meta.read(r -> r.clockMillis());
    } catch (RuntimeException e) {
      metaClock = Long.MIN_VALUE; // no local view: the node's own clock and the last stamp
    }
    long stamp;
    if (now >= metaClock) {
      // This node's clock is not behind the metastore's: its own time is the stamp. Carrying the
      // elapsed time here would carry a step forward too (a clock stepped back, then back to the
      // true time, reads minutes of elapsed time): the stamps ran ahead by the step, were refused
      // as FUTURE_STAMP, and the node was declared dead while running (found by ChaosProcessIT's
      // clock steps); capped at a renew interval they still pushed the metastore clock ahead and
      // retention trimmed records early (found by loam-sim with the step back).
      stamp = now;
    } else {
      // Behind: keep moving the stamp by the elapsed time (a step back reads as none; at most one
      // renew interval per renewal, so a step forward that leaves the clock still behind carries
      // little), never behind the metastore's clock.
      long elapsed =
          Math.min(Math.max(0, now - lastRenewStampLocal), settings.renewInterval().toMillis());
      long carried = lastRenewStamp == Long.MIN_VALUE ? Long.MIN_VALUE : lastRenewStamp + elapsed;
      stamp = Math.max(metaClock, carried);
    }
    lastRenewStamp = stamp;
    lastRenewStampLocal = now;
    return stamp;
  }

  private synchronized void forgetRenewalStamp() {
    lastRenewStamp = Long.MIN_VALUE;
  }

  private CompletableFuture<Void> expireSilent() {
    long timeout = settings.livenessTimeout().toMillis();
    List<ExpireNode> verdicts =
        meta.read(
            r -> {
              List<ExpireNode> out = new ArrayList<>();
              for (NodeInfo n : r.nodes()) {
                NodeStatus st = r.nodeStatus(n.id()).orElse(null);
                if (st != null
                    && st.live()
                    && !n.id().equals(nodeId)
                    && r.clockMillis() - st.renewedAtMillis() >= timeout) {
                  out.add(new ExpireNode(origin(), n.id(), n.epoch(), timeout));
                }
              }
              return out;
            });
    CompletableFuture<Void> f = CompletableFuture.completedFuture(null);
    for (ExpireNode e : verdicts) {
      f = f.thenCompose(v -> meta.propose(e)).thenApply(a -> logExpiry(e, a));
    }
    return f;
  }

  private Void logExpiry(ExpireNode e, Applied a) {
    if (a.outcome() instanceof Outcome.NodeStatusChanged c && c.changed()) {
      log.info(
          "declared node dead node={} epoch={} streamsClosed={}",
          e.nodeId(),
          e.nodeEpoch(),
          c.streamsClosed());
    }
    return null;
  }

  /**
   * Claims, one stream at a time: streams placed on this node or transferred to it are opened;
   * streams without owner are placed when this node is the placement choice (so nodes do not race
   * for them), then opened if placed here.
   */
  private CompletableFuture<Void> claim() {
    if (leaving) {
      return CompletableFuture.completedFuture(null);
    }
    Command next =
        meta.read(
            r -> {
              if (r.nodeStatus(nodeId).map(st -> !st.live() || st.epoch() != epoch).orElse(true)) {
                return null;
              }
              boolean chosen = r.placementChoice().map(nodeId::equals).orElse(false);
              for (String ns : r.namespaces()) {
                for (StreamInfo s : r.streams(ns)) {
                  StreamOwnership o = r.ownership(s.id()).orElse(null);
                  if (o == null) {
                    continue;
                  }
                  OwnerRouting.Decision d = OwnerRouting.decide(r, nodeId, epoch, s.id());
                  boolean unowned = !o.owned() && o.transferTarget() == null;
                  if (unowned) {
                    if (chosen) {
                      return new PlaceStream(origin(), s.id());
                    }
                  } else if (d.action() == OwnerRouting.Action.OPEN) {
                    return new OpenStream(origin(), s.id());
                  }
                }
              }
              return null;
            });
    if (next == null) {
      return CompletableFuture.completedFuture(null);
    }
    return proposeAndWait(next)
        .thenCompose(
            a -> {
              boolean progressed =
                  a.outcome() instanceof Outcome.OwnershipChanged oc && oc.changed();
              return progressed ? claim() : CompletableFuture.completedFuture(null);
            });
  }

  // ---------------------------------------------------------------- leaving

  /**
   * Graceful leave: takes this node out of placement (slots 0), transfers every stream it owns to
   * the placement choice among the others, waits up to the drain timeout for the targets to open
   * them, then deregisters (closing whatever did not move). Completes when deregistered.
   */
  public CompletableFuture<Integer> leave() {
    leaving = true;
    return proposeRetrying(() -> new SetNodeSlots(origin(), nodeId, 0), true, 0)
        .thenCompose(
            a -> {
              List<StreamOwnership> mine = meta.read(r -> r.ownershipsInvolving(nodeId));
              CompletableFuture<Integer> f = CompletableFuture.completedFuture(0);
              for (StreamOwnership o : mine) {
                // A transfer that cannot be started is not fatal: the deregistration closes the
                // stream and the others revive it.
                f =
                    f.thenCompose(
                        n ->
                            transferAway(o)
                                .exceptionally(t -> false)
                                .thenApply(moved -> n + (moved ? 1 : 0)));
              }
              return f;
            })
        .thenCompose(
            n ->
                awaitTransfers(clock.millis() + settings.drainTimeout().toMillis())
                    .thenApply(v -> n))
        .thenCompose(
            n -> proposeRetrying(() -> new DeregisterNode(origin()), true, 0).thenApply(a -> n));
  }

  /**
   * Proposes a leave step, retrying when nothing was logged (UNAVAILABLE) and, for idempotent
   * steps, when the outcome is unknown: one refused proposal during a metastore election must not
   * turn a graceful leave into a death verdict a liveness timeout later (found by loam-sim).
   */
  private CompletableFuture<Applied> proposeRetrying(
      Supplier<Command> command, boolean idempotent, int attempt) {
    return meta.propose(command.get())
        .handle(
            (a, t) -> {
              if (t == null) {
                return CompletableFuture.completedFuture(a);
              }
              Throwable cause =
                  t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                      ? t.getCause()
                      : t;
              boolean retriable =
                  cause instanceof LoamException le
                      && (le.kind() == Kind.UNAVAILABLE
                          || (idempotent && le.kind() == Kind.OUTCOME_UNKNOWN));
              if (!retriable || attempt + 1 >= LEAVE_ATTEMPTS) {
                return CompletableFuture.<Applied>failedFuture(cause);
              }
              CompletableFuture<Void> later = new CompletableFuture<>();
              scheduler.schedule(
                  () -> later.complete(null), LEAVE_RETRY_MILLIS, TimeUnit.MILLISECONDS);
              return later.thenCompose(v -> proposeRetrying(command, idempotent, attempt + 1));
            })
        .thenCompose(f -> f);
  }

  private CompletableFuture<Boolean> transferAway(StreamOwnership o) {
    if (!nodeId.equals(o.owner()) || o.state() != StreamOwnership.State.OPEN) {
      // Placed here but never opened: the deregistration closes it and the next placement moves
      // it; nothing ran on it here, so there is nothing to hand over.
      return CompletableFuture.completedFuture(false);
    }
    String target = meta.read(r -> r.placementChoice().orElse(null));
    if (target == null || target.equals(nodeId)) {
      return proposeRetrying(
              () -> new CloseStream(origin(), o.streamId(), o.streamEpoch()), true, 0)
          .thenApply(a -> false);
    }
    return proposeRetrying(
            () -> new TransferStream(origin(), o.streamId(), o.streamEpoch(), target), false, 0)
        .thenApply(a -> a.outcome() instanceof Outcome.OwnershipChanged);
  }

  /** Polls the local view (it changes as the targets open) until no transfer of ours is pending. */
  private CompletableFuture<Void> awaitTransfers(long deadline) {
    boolean pending =
        meta.read(
            r ->
                r.ownershipsInvolving(nodeId).stream()
                    .anyMatch(o -> o.transferTarget() != null && nodeId.equals(o.owner())));
    if (!pending || clock.millis() >= deadline) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> later = new CompletableFuture<>();
    scheduler.schedule(() -> later.complete(null), DRAIN_POLL_MILLIS, TimeUnit.MILLISECONDS);
    return later.thenCompose(v -> awaitTransfers(deadline));
  }

  /** This node's view of who owns {@code streamId}. */
  public StreamOwnership ownership(MetaReader r, long streamId) {
    return r.ownership(streamId).orElse(StreamOwnership.unplaced(streamId));
  }
}
