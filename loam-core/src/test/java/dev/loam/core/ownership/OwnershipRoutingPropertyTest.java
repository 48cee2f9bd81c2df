package dev.loam.core.ownership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * Placement and routing over random sequences of register, slots change, place, open, close,
 * transfer, crash (a node stops renewing and is declared dead), restart (a new epoch) and stale
 * views (each node routes on a snapshot of the state taken some steps ago), with owner-bound
 * commands proposed on those views. Asserts: at most one owner per stream epoch; placement is a
 * pure function of the replicated state (a replica restored from a snapshot chooses the same node,
 * and the choice matches a reference computed here); an owner-bound command is applied only for the
 * owner at the current epoch; every routed request ends, within a bounded number of redirects, at
 * the owner or is served locally by the rules.
 */
class OwnershipRoutingPropertyTest {
  private static final String[] NODES = {"a", "b", "c", "d"};
  private static final int STREAMS = 5;
  private static final long TIMEOUT = 5_000;

  @Property(tries = 200)
  void ownershipAndRoutingHoldUnderRandomSteps(
      @ForAll long seed, @ForAll @IntRange(min = 20, max = 160) int steps) {
    Random rnd = new Random(seed);
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    Map<String, Long> epochs = new HashMap<>();
    Map<String, MetaStateMachine> views = new HashMap<>();
    Map<String, String> ownerOfEpoch = new HashMap<>();
    long[] now = {1_000_000};
    long[] index = {0};
    java.util.function.Function<Command, Outcome> apply = c -> m.apply(++index[0], c);
    for (String n : NODES) {
      epochs.put(n, now[0]);
      apply.apply(new RegisterNode(new Origin(n, now[0], now[0]), "http://" + n, 1, "z"));
    }
    for (int i = 0; i < STREAMS; i++) {
      apply.apply(
          new CreateStream(
              new Origin("a", epochs.get("a"), now[0]),
              "default",
              "s" + i,
              new StreamConfig(
                  1, DurabilityClass.STANDARD, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    }
    for (String n : NODES) {
      views.put(n, copy(m));
    }
    for (int step = 0; step < steps; step++) {
      String n = NODES[rnd.nextInt(NODES.length)];
      long streamId = 1 + rnd.nextInt(STREAMS);
      now[0] += rnd.nextInt(1_500);
      Origin o = new Origin(n, epochs.get(n), now[0]);
      MetaReader view = views.get(n).reader();
      switch (rnd.nextInt(11)) {
        case 0 -> apply.apply(new RenewNode(o));
        case 1 ->
            apply.apply(new SetNodeSlots(o, NODES[rnd.nextInt(NODES.length)], rnd.nextInt(5)));
        case 2 -> apply.apply(new PlaceStream(o, streamId));
        case 3, 4 -> {
          // A request at n, routed on n's (stale) view; the node serving it opens as needed.
          OwnerRouting.Decision d = OwnerRouting.decide(view, n, epochs.get(n), streamId);
          if (d.action() == OwnerRouting.Action.OPEN) {
            apply.apply(new OpenStream(o, streamId));
          } else if (d.action() == OwnerRouting.Action.PLACE) {
            apply.apply(new PlaceStream(o, streamId));
          }
        }
        case 5 -> {
          long epoch = view.ownership(streamId).map(StreamOwnership::streamEpoch).orElse(0L);
          apply.apply(new CloseStream(o, streamId, epoch));
        }
        case 6 -> {
          long epoch = view.ownership(streamId).map(StreamOwnership::streamEpoch).orElse(0L);
          apply.apply(new TransferStream(o, streamId, epoch, NODES[rnd.nextInt(NODES.length)]));
        }
        case 7 -> {
          // Crash of another node: everyone else renews past the timeout, then n declares it dead.
          String victim = NODES[rnd.nextInt(NODES.length)];
          now[0] += TIMEOUT;
          for (String x : NODES) {
            if (!x.equals(victim)) {
              apply.apply(new RenewNode(new Origin(x, epochs.get(x), now[0])));
            }
          }
          apply.apply(
              new ExpireNode(
                  new Origin(n, epochs.get(n), now[0]), victim, epochs.get(victim), TIMEOUT));
        }
        case 8 -> {
          // Restart: a new process, a new epoch.
          long e = Math.max(now[0], epochs.get(n) + 1);
          epochs.put(n, e);
          apply.apply(
              new RegisterNode(new Origin(n, e, now[0]), "http://" + n, 1 + rnd.nextInt(3), "z"));
          views.put(n, copy(m));
        }
        case 9 -> views.put(n, copy(m)); // n's view catches up
        default -> {
          // An owner-bound command at the epoch n's view shows: applied only for the true owner.
          StreamOwnership cur = m.reader().ownership(streamId).orElseThrow();
          long seen = view.ownership(streamId).map(StreamOwnership::streamEpoch).orElse(0L);
          UpdateStreamConfig u =
              new UpdateStreamConfig(o, "default", "s" + (streamId - 1), 1000L + step, null, null);
          Outcome out = apply.apply(new OwnerFenced(streamId, seen, u));
          boolean owner =
              m.reader().nodeStatus(n).orElseThrow().live()
                  && cur.state() == StreamOwnership.State.OPEN
                  && n.equals(cur.owner())
                  && cur.ownerEpoch() == epochs.get(n)
                  && cur.streamEpoch() == seen;
          assertThat(out instanceof Outcome.StreamConfigUpdated)
              .as("owner-bound command applied iff %s is the owner at epoch %s: %s", n, seen, out)
              .isEqualTo(owner);
        }
      }
      checkInvariants(m, ownerOfEpoch);
      checkRouting(m, views, epochs);
    }
  }

  private static MetaStateMachine copy(MetaStateMachine m) {
    return MetaStateMachine.restore(m.snapshot(), MetaSettings.defaults());
  }

  private static void checkInvariants(MetaStateMachine m, Map<String, String> ownerOfEpoch) {
    MetaReader r = m.reader();
    Map<String, Integer> assigned = new HashMap<>();
    for (long id = 1; id <= STREAMS; id++) {
      StreamOwnership o = r.ownership(id).orElseThrow();
      if (o.state() == StreamOwnership.State.OPEN) {
        String holder = o.owner() + "@" + o.ownerEpoch();
        String prev = ownerOfEpoch.putIfAbsent(id + "#" + o.streamEpoch(), holder);
        assertThat(prev == null || prev.equals(holder))
            .as(
                "one owner per stream epoch stream=%s epoch=%s: %s then %s",
                id, o.streamEpoch(), prev, holder)
            .isTrue();
      }
      if (o.owned()) {
        assigned.merge(o.owner(), 1, Integer::sum);
        assertThat(r.nodeStatus(o.owner()).orElseThrow().live()).as("owner is live").isTrue();
      }
    }
    // Placement: the reference choice, and the same on a replica restored from a snapshot.
    String best = null;
    for (NodeInfo n : r.nodes()) {
      if (n.slots() < 1 || !r.nodeStatus(n.id()).orElseThrow().live()) {
        continue;
      }
      int a = assigned.getOrDefault(n.id(), 0);
      if (best == null) {
        best = n.id();
        continue;
      }
      NodeInfo b = r.node(best).orElseThrow();
      int ab = assigned.getOrDefault(best, 0);
      if ((long) a * b.slots() < (long) ab * n.slots()) {
        best = n.id();
      }
    }
    assertThat(r.placementChoice().orElse(null)).isEqualTo(best);
    assertThat(copy(m).reader().placementChoice()).isEqualTo(r.placementChoice());
  }

  /**
   * Every request, at every node, routed hop by hop on each node's view (stale first, then the
   * current one once a redirect lands) ends at a node that serves it locally, within 2 hops past
   * the stale one; where it ends is the owner or transfer target, or the stream has no owner.
   */
  private static void checkRouting(
      MetaStateMachine m, Map<String, MetaStateMachine> views, Map<String, Long> epochs) {
    MetaReader current = m.reader();
    for (String start : NODES) {
      for (long id = 1; id <= STREAMS; id++) {
        String at = start;
        MetaReader view = views.get(start).reader();
        int hops = 0;
        OwnerRouting.Decision d = OwnerRouting.decide(view, at, epochs.get(at), id);
        while (d.action() == OwnerRouting.Action.REDIRECT) {
          assertThat(hops).as("redirects converge stream=%s from=%s", id, start).isLessThan(3);
          at = d.target();
          view = current; // the node redirected to routes on its own, newer view
          d = OwnerRouting.decide(view, at, epochs.get(at), id);
          hops++;
        }
        StreamOwnership o = current.ownership(id).orElseThrow();
        if (hops > 0) {
          String expected = o.transferTarget() != null ? o.transferTarget() : o.owner();
          assertThat(expected == null || expected.equals(at))
              .as("a redirected request ends at the owner stream=%s at=%s ownership=%s", id, at, o)
              .isTrue();
        }
      }
    }
  }
}
