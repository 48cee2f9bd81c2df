package dev.loam.sim.quorum;

import dev.loam.journal.node.JournalNodeHost;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimScheduler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The run's journals on a simulated Raft (docs/design/simulation.md "Quorum streams"): per journal
 * one {@link RaftReplica} per replica node, kept across that node's incarnations (its term, vote
 * and synced log prefix are its disk), and the network between them, whose messages the faults
 * delay, lose or cut off. Every replica applies committed entries to its own real {@code
 * JournalState}; the model checks Raft's state machine safety on every apply (no two replicas apply
 * different entries at one index).
 *
 * <p>Single-threaded like the whole simulation: only scheduler tasks touch it.
 */
public final class SimRaft {
  /** Heartbeats and the election check run this often on each replica. */
  static final long TICK_MILLIS = 50;

  /**
   * The network's per-message faults while the per-call faults are on.
   *
   * @param lose probability that a message is lost
   * @param delay probability that a message is held back
   * @param maxDelayMillis how long at most a held-back message waits
   */
  public record Faults(double lose, double delay, int maxDelayMillis) {
    /** No message lost or held back. */
    public static Faults none() {
      return new Faults(0, 0, 0);
    }

    @Override
    public String toString() {
      return String.format(
          java.util.Locale.ROOT,
          "journalNet[lose=%.4f delay=%.4f/%dms]",
          lose,
          delay,
          maxDelayMillis);
    }
  }

  /**
   * The protocol's two safety rules, both on in every run; a test turns one off to show that the
   * checks catch the broken protocol.
   *
   * @param majorityCommit an entry commits once a majority synced it (off: once the leader did)
   * @param upToDateVote a vote goes only to a candidate whose log is at least as up to date
   */
  public record Rules(boolean majorityCommit, boolean upToDateVote) {
    /** Raft. */
    public static Rules raft() {
      return new Rules(true, true);
    }
  }

  private final SimContext ctx;
  private final SimScheduler scheduler;
  private final SplittableRandom random;
  private final Faults faults;
  private final Rules rules;
  private final long maxUnsealedBytes;
  private final Consumer<String> violation;
  private final Map<String, Map<String, RaftReplica>> journals = new TreeMap<>();
  private final Map<String, List<String>> appliedIds = new HashMap<>();
  private final Set<String> isolated = new HashSet<>();
  private final Map<String, Long> extraDelay = new HashMap<>();
  private final Map<String, SimJournals> clients = new HashMap<>();
  private final Map<String, Integer> incarnations = new HashMap<>();
  private boolean faultsOn;

  /**
   * @param random the seed's stream for the journals: election timeouts and message faults
   * @param maxUnsealedBytes every replica's bound on unsealed bytes (apply depends on it)
   * @param violation where a broken Raft invariant is reported
   */
  public SimRaft(
      SimContext ctx,
      SplittableRandom random,
      Faults faults,
      Rules rules,
      long maxUnsealedBytes,
      Consumer<String> violation) {
    this.ctx = Objects.requireNonNull(ctx, "ctx");
    this.scheduler = ctx.scheduler();
    this.random = random;
    this.faults = faults;
    this.rules = rules;
    this.maxUnsealedBytes = maxUnsealedBytes;
    this.violation = violation;
  }

  /** Starts a node's quorum host: the real node host over this node's simulated replicas. */
  public dev.loam.spi.quorum.QuorumHostFactory factory() {
    return c -> JournalNodeHost.over(c, new SimJournals(this, c), maxUnsealedBytes);
  }

  /** The per-message faults apply from now on ({@code true}) or stop. */
  public void setFaultsEnabled(boolean on) {
    faultsOn = on;
  }

  /** Every message to or from {@code node} is lost from now on, until {@link #reconnect}. */
  public void isolate(String node) {
    isolated.add(node);
    ctx.trace().add("journal isolate " + node);
  }

  /** Ends {@link #isolate}. */
  public void reconnect(String node) {
    isolated.remove(node);
    ctx.trace().add("journal reconnect " + node);
  }

  /** Every message to or from {@code node} takes {@code millis} more, until set back to 0. */
  public void slow(String node, long millis) {
    if (millis <= 0) {
      extraDelay.remove(node);
    } else {
      extraDelay.put(node, millis);
    }
    ctx.trace().add("journal slow " + node + " " + millis + "ms");
  }

  /** Healing: the network is whole again. */
  public void heal() {
    faultsOn = false;
    isolated.clear();
    extraDelay.clear();
  }

  /** The node leading {@code journal} now (a ready leader of the highest term), if any. */
  public Optional<String> leaderOf(String journal) {
    RaftReplica best = null;
    for (RaftReplica r : journals.getOrDefault(journal, Map.of()).values()) {
      if (r.isReadyLeader() && (best == null || r.term() > best.term())) {
        best = r;
      }
    }
    return best == null ? Optional.empty() : Optional.of(best.nodeId());
  }

  /** The journals placed so far, by name. */
  public List<String> journals() {
    return List.copyOf(journals.keySet());
  }

  /** How long one log sync takes: 1–2 ms. */
  long syncMillis() {
    return 1 + random.nextInt(2);
  }

  /**
   * {@code node}'s running incarnation registers its journals; the answer names the incarnation.
   */
  int register(String node, SimJournals j) {
    clients.put(node, j);
    return incarnations.merge(node, 1, Integer::sum);
  }

  /** The incarnation ended. */
  void unregister(String node, SimJournals j) {
    clients.remove(node, j);
  }

  /** {@code node}'s running incarnation's journals, or null while it is down. */
  SimJournals client(String node) {
    return clients.get(node);
  }

  Rules rules() {
    return rules;
  }

  long maxUnsealedBytes() {
    return maxUnsealedBytes;
  }

  SimContext ctx() {
    return ctx;
  }

  /** Draws an election timeout: 300–600 ms, as the journals' Ratis default. */
  long electionTimeoutMillis() {
    return 300 + random.nextInt(301);
  }

  /** The replica of {@code journal} on {@code node}, created at its first hosting. */
  RaftReplica replica(String journal, String node, List<String> peers) {
    return journals
        .computeIfAbsent(journal, j -> new TreeMap<>())
        .computeIfAbsent(node, n -> new RaftReplica(this, journal, n, peers));
  }

  /** The journals {@code node} has a replica of: what its disk holds, across incarnations. */
  List<RaftReplica> replicasOn(String node) {
    List<RaftReplica> out = new ArrayList<>();
    for (Map<String, RaftReplica> g : journals.values()) {
      RaftReplica r = g.get(node);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  RaftReplica existing(String journal, String node) {
    Map<String, RaftReplica> g = journals.get(journal);
    return g == null ? null : g.get(node);
  }

  /**
   * Sends {@code deliver} from {@code from} to the replica of {@code journal} on {@code to}, as
   * {@link #transmit}; it runs on the receiver's process (held while that is paused) and only while
   * the receiver's incarnation hosts the journal.
   */
  void send(String journal, String from, String to, Consumer<RaftReplica> deliver) {
    transmit(
        from,
        to,
        () -> {
          RaftReplica r = existing(journal, to);
          if (r != null) {
            r.deliver(deliver);
          }
        });
  }

  /**
   * One message from node {@code from} to node {@code to}: {@code arrive} runs after 1–3 ms, later
   * when held back or a side is slow, never when lost or a side is isolated.
   */
  void transmit(String from, String to, Runnable arrive) {
    if (isolated.contains(from) || isolated.contains(to)) {
      ctx.count("journal.msgLostIsolated");
      return;
    }
    long delay = 1 + random.nextInt(3);
    if (faultsOn) {
      if (random.nextDouble() < faults.lose()) {
        ctx.count("journal.msgLost");
        return;
      }
      if (random.nextDouble() < faults.delay()) {
        ctx.count("journal.msgDelayed");
        delay += random.nextInt(Math.max(1, faults.maxDelayMillis()));
      }
    }
    delay += extraDelay.getOrDefault(from, 0L) + extraDelay.getOrDefault(to, 0L);
    scheduler.schedule(arrive, delay, TimeUnit.MILLISECONDS);
  }

  /**
   * Raft's state machine safety, checked at every apply: the entry a replica applies at {@code
   * index} is the one every other replica applied there.
   */
  void checkApplied(String journal, String node, long index, String id) {
    List<String> ids = appliedIds.computeIfAbsent(journal, j -> new ArrayList<>());
    if (index == ids.size() + 1) {
      ids.add(id);
    } else if (index <= ids.size() && !ids.get((int) index - 1).equals(id)) {
      violation.accept(
          "journal state machine safety: "
              + node
              + " applied "
              + id
              + " at index "
              + index
              + " of "
              + journal
              + " where another replica applied "
              + ids.get((int) index - 1));
    }
  }
}
