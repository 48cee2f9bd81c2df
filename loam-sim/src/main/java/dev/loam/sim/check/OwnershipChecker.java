package dev.loam.sim.check;

import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TrimPartition;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The ownership invariants of ownership-and-routing.txt, checked on every command the simulated
 * metastore applies, against the replicated state just before and just after it
 * (docs/design/simulation.md "Invariants"). The rules are re-derived here independently of {@code
 * MetaStateMachine}, so a fencing or placement bug in the state machine, or a proposal the core
 * should never have made, shows up as a violation with the index of the command.
 *
 * <ul>
 *   <li>a node declared dead (or a stale epoch of it) has no command accepted until it registers;
 *   <li>an {@link OwnerFenced} command, or an unwrapped owner-bound one, is accepted only from the
 *       node holding the stream open at its node epoch (and, fenced, at that stream epoch);
 *   <li>at most one owner per (stream, stream epoch), and a stream epoch never decreases;
 *   <li>placement is a pure function of the state: the state machine's choice equals the one
 *       re-derived here, before and after every command;
 *   <li>a node is declared dead only when the simulation says it may be (the liveness judge).
 * </ul>
 */
public final class OwnershipChecker implements ApplyListener {

  /** Decides whether a death verdict is legitimate: null if so, else why not. */
  public interface LivenessJudge {
    String whyNotDead(String nodeId, long nodeEpoch);
  }

  /** One node as the replicated state had it. */
  public record NodeView(String id, long epoch, boolean live, int slots) {}

  /** The ownership part of the replicated state at one index. */
  public record Snapshot(
      Map<String, NodeView> nodes, Map<Long, StreamOwnership> owners, String placement) {
    static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of(), null);
  }

  private final Checker checker;
  private final Function<Function<MetaReader, Snapshot>, Snapshot> reader;
  private final LivenessJudge judge;
  private final Map<String, String> ownerAtEpoch = new HashMap<>();
  private Snapshot last = Snapshot.EMPTY;
  private long deaths;
  private long fencedRefusals;
  private long opens;
  private long placements;

  /**
   * @param reader runs a query on the metastore state as it is after the command just applied
   */
  public OwnershipChecker(
      Checker checker,
      Function<Function<MetaReader, Snapshot>, Snapshot> reader,
      LivenessJudge judge) {
    this.checker = checker;
    this.reader = reader;
    this.judge = judge;
  }

  /** The ownership state after the last applied command. */
  public Snapshot current() {
    return last;
  }

  /** Nodes declared dead by an applied {@code ExpireNode} so far. */
  public long deaths() {
    return deaths;
  }

  /**
   * Owner-bound commands the state machine refused because the proposer did not hold the stream.
   */
  public long fencedRefusals() {
    return fencedRefusals;
  }

  /** Stream epochs opened so far (a stream opened, or opened again at a new epoch). */
  public long opens() {
    return opens;
  }

  /** {@code PlaceStream} commands that placed a stream so far. */
  public long placements() {
    return placements;
  }

  @Override
  public void onApplied(long index, Command command, Outcome outcome) {
    Snapshot before = last;
    Snapshot after = reader.apply(OwnershipChecker::snapshot);
    last = after;
    boolean accepted = !(outcome instanceof Outcome.Rejected);
    String at = " index=" + index + " command=" + command.getClass().getSimpleName();
    Origin o = command.origin();

    // Fencing of dead and stale nodes.
    if (!(command instanceof RegisterNode) && accepted) {
      NodeView n = before.nodes().get(o.nodeId());
      if (n != null && o.nodeEpoch() == n.epoch() && !n.live()) {
        checker.violation("command of a dead node accepted node=" + o.nodeId() + at);
      }
      if (n != null && o.nodeEpoch() < n.epoch()) {
        checker.violation(
            "command of a stale node epoch accepted node="
                + o.nodeId()
                + " epoch="
                + o.nodeEpoch()
                + " registered="
                + n.epoch()
                + at);
      }
    }

    // Owner-bound commands only from the holder of the stream.
    if (command instanceof OwnerFenced f) {
      StreamOwnership so = before.owners().get(f.streamId());
      boolean holds =
          so != null
              && so.state() == StreamOwnership.State.OPEN
              && o.nodeId().equals(so.owner())
              && so.ownerEpoch() == o.nodeEpoch()
              && so.streamEpoch() == f.streamEpoch();
      if (!holds && accepted) {
        checker.violation(
            "owner-bound command accepted from a non-owner or at a stale stream epoch node="
                + o.nodeId()
                + "@"
                + o.nodeEpoch()
                + " streamEpoch="
                + f.streamEpoch()
                + " ownership="
                + so
                + at);
      }
      if (!holds && !accepted) {
        fencedRefusals++;
      }
    } else if (OwnerFenced.ownerBound(command) && accepted) {
      long streamId = streamIdOf(command);
      StreamOwnership so = streamId < 0 ? null : before.owners().get(streamId);
      if (so != null
          && so.owned()
          && !(so.state() == StreamOwnership.State.OPEN
              && o.nodeId().equals(so.owner())
              && so.ownerEpoch() == o.nodeEpoch())) {
        checker.violation(
            "unwrapped owner-bound command accepted from a non-owner node="
                + o.nodeId()
                + " ownership="
                + so
                + at);
      }
    }

    // One owner per (stream, stream epoch); stream epochs never go back.
    for (StreamOwnership so : after.owners().values()) {
      StreamOwnership prev = before.owners().get(so.streamId());
      if (prev != null && so.streamEpoch() < prev.streamEpoch()) {
        checker.violation(
            "stream epoch decreased streamId="
                + so.streamId()
                + " from="
                + prev.streamEpoch()
                + " to="
                + so.streamEpoch()
                + at);
      }
      if (so.state() == StreamOwnership.State.OPEN) {
        String who = so.owner() + "@" + so.ownerEpoch();
        String was = ownerAtEpoch.putIfAbsent(so.streamId() + "#" + so.streamEpoch(), who);
        if (was != null && !was.equals(who)) {
          checker.violation(
              "two owners at one stream epoch streamId="
                  + so.streamId()
                  + " streamEpoch="
                  + so.streamEpoch()
                  + " first="
                  + was
                  + " now="
                  + who
                  + at);
        }
        if (prev == null || prev.streamEpoch() != so.streamEpoch()) {
          opens++;
        }
      }
    }

    // Placement is a pure function of the replicated state.
    String derived = derivePlacement(after);
    if (!java.util.Objects.equals(derived, after.placement())) {
      checker.violation(
          "placement choice differs from the one derived from the state machine="
              + after.placement()
              + " derived="
              + derived
              + at);
    }
    if (command instanceof PlaceStream p
        && outcome instanceof Outcome.OwnershipChanged oc
        && oc.changed()) {
      placements++;
      String expected = derivePlacement(before);
      if (!oc.ownership().owner().equals(expected)) {
        checker.violation(
            "stream placed on "
                + oc.ownership().owner()
                + " but the state before chose "
                + expected
                + " streamId="
                + p.streamId()
                + at);
      }
    }

    // Liveness: nobody running and reachable is declared dead.
    if (command instanceof ExpireNode e
        && outcome instanceof Outcome.NodeStatusChanged c
        && c.changed()) {
      deaths++;
      String why = judge.whyNotDead(e.nodeId(), e.nodeEpoch());
      if (why != null) {
        checker.violation(
            "a live node was declared dead node="
                + e.nodeId()
                + "@"
                + e.nodeEpoch()
                + " "
                + why
                + at);
      }
    }
  }

  private static long streamIdOf(Command c) {
    if (c instanceof SwapSegment s) {
      return s.streamId();
    } else if (c instanceof TrimPartition t) {
      return t.streamId();
    } else if (c instanceof AcquireConsumerLease a) {
      return a.streamId();
    } else if (c instanceof CommitConsumerOffset k) {
      return k.streamId();
    }
    return -1;
  }

  /**
   * ownership-and-routing.txt placement, written again: the live node with slots whose
   * assigned/slots is lowest (exactly, by cross-multiplication), ties to the smallest id; assigned
   * counts streams placed on or opened by the node.
   */
  static String derivePlacement(Snapshot s) {
    Map<String, Integer> assigned = new HashMap<>();
    for (StreamOwnership o : s.owners().values()) {
      if (o.owned()) {
        assigned.merge(o.owner(), 1, Integer::sum);
      }
    }
    String best = null;
    long bestAssigned = 0;
    long bestSlots = 1;
    for (NodeView n : new TreeMap<>(s.nodes()).values()) {
      if (!n.live() || n.slots() < 1) {
        continue;
      }
      long a = assigned.getOrDefault(n.id(), 0);
      if (best == null || a * bestSlots < bestAssigned * n.slots()) {
        best = n.id();
        bestAssigned = a;
        bestSlots = n.slots();
      }
    }
    return best;
  }

  /** The ownership part of the state {@code r} reads. */
  public static Snapshot snapshot(MetaReader r) {
    Map<String, NodeView> nodes = new TreeMap<>();
    for (NodeInfo n : r.nodes()) {
      NodeStatus st = r.nodeStatus(n.id()).orElse(null);
      nodes.put(n.id(), new NodeView(n.id(), n.epoch(), st != null && st.live(), n.slots()));
    }
    Map<Long, StreamOwnership> owners = new TreeMap<>();
    for (String ns : r.namespaces()) {
      for (StreamInfo s : r.streams(ns)) {
        owners.put(s.id(), r.ownership(s.id()).orElse(StreamOwnership.unplaced(s.id())));
      }
    }
    return new Snapshot(nodes, owners, r.placementChoice().orElse(null));
  }
}
