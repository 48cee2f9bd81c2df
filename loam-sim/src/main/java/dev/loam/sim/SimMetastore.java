package dev.loam.sim;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.AppliedIndexWatch;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.zip.CRC32C;

/**
 * A simulated replicated metastore: one real {@link MetaStateMachine} applying commands in log
 * order, where the "log" is the order in which proposals reach the leader through the {@link
 * SimScheduler}. Every command goes through {@link CommandCodec} on its way into the log, as in a
 * real replica. This is the leader's replica; each node reads through its own {@link SimReplica},
 * which applies the same log late ({@link #replica}), as a Ratis follower does.
 *
 * <p>Faults, drawn from its own random stream: a proposal refused before logging (UNAVAILABLE), one
 * lost before logging whose caller hears OUTCOME_UNKNOWN, one applied whose answer is lost
 * (OUTCOME_UNKNOWN), a delayed proposal, and a leader change (answers in flight are lost, and
 * proposals are refused until a new leader is elected). The 60 s future-stamp refusal is checked on
 * arrival with the metastore's own clock (the unskewed {@link SimClock}), before logging.
 *
 * <p>Every command takes the same path, registrations included: a node starts through {@code
 * LoamNode.Builder.startAsync}, whose steps the harness drives on the scheduler like any other.
 */
public final class SimMetastore implements Metastore {

  /**
   * Per-proposal probabilities for one run.
   *
   * @param delayMillis the extra latency of a delayed proposal
   */
  public record Faults(
      double refused, double lostBeforeLog, double answerLost, double delayed, long delayMillis) {
    public static Faults none() {
      return new Faults(0, 0, 0, 0, 0);
    }

    @Override
    public String toString() {
      return String.format(
          java.util.Locale.ROOT,
          "meta{refused=%.3f lostBeforeLog=%.3f answerLost=%.3f delayed=%.3f(%dms)}",
          refused,
          lostBeforeLog,
          answerLost,
          delayed,
          delayMillis);
    }
  }

  /** Counts of injected faults and refusals. */
  public static final class Stats {
    public long proposals;
    public long refused;
    public long lostBeforeLog;
    public long answerLost;
    public long delayed;
    public long futureStamp;
    public long leaderChanges;
    public long replicaStalls;

    /** CommitWalGroup proposals, the objects they carried, and how many of them a fault hit. */
    public long commitGroups;

    public long groupedObjects;
    public long groupFaults;

    /**
     * WAL commit proposals made while another of the same node was unanswered, and how many of
     * them, or of the proposals they overtook, a fault or a delay hit.
     */
    public long pipelined;

    public long pipelinedFaults;

    @Override
    public String toString() {
      return "proposals="
          + proposals
          + " refused="
          + refused
          + " lostBeforeLog="
          + lostBeforeLog
          + " answerLost="
          + answerLost
          + " delayed="
          + delayed
          + " futureStampRefusals="
          + futureStamp
          + " leaderChanges="
          + leaderChanges
          + " replicaStalls="
          + replicaStalls
          + " commitGroups="
          + commitGroups
          + " groupedObjects="
          + groupedObjects
          + " groupFaults="
          + groupFaults
          + " pipelined="
          + pipelined
          + " pipelinedFaults="
          + pipelinedFaults;
    }
  }

  private final SimScheduler scheduler;
  private final SimClock clock;
  private final SplittableRandom random;
  private final Faults faults;
  private final MetaSettings settings;
  private final Trace trace;
  private final MetaStateMachine machine;
  private final Stats stats = new Stats();
  private final AppliedIndexWatch watch = new AppliedIndexWatch(0);
  private final long maxFutureStampMillis;
  private final java.util.List<SimReplica> replicas = new java.util.ArrayList<>();
  private boolean faultsEnabled = true;
  // Per node id, its WAL commit proposals not yet answered, and whether a fault hit one of them.
  private final java.util.Map<String, int[]> unansweredCommits = new java.util.HashMap<>();
  private boolean closed;

  /** Bumped by a leader change; an answer scheduled under an older term is lost. */
  private long term;

  /** Until this time (ns) there is no leader: proposals are refused. */
  private long electionUntilNanos;

  public SimMetastore(
      SimScheduler scheduler,
      SplittableRandom random,
      Faults faults,
      MetaSettings settings,
      Trace trace) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.clock = scheduler.clock();
    this.random = Objects.requireNonNull(random, "random");
    this.faults = Objects.requireNonNull(faults, "faults");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.trace = Objects.requireNonNull(trace, "trace");
    this.machine = new MetaStateMachine(settings);
    this.maxFutureStampMillis = settings.maxFutureStamp().toMillis();
  }

  public void setFaultsEnabled(boolean on) {
    this.faultsEnabled = on;
  }

  public Stats stats() {
    return stats;
  }

  public Faults faults() {
    return faults;
  }

  public MetaSettings settings() {
    return settings;
  }

  /**
   * A new replica for one node process, starting from the leader's state now and fed every command
   * the leader applies from here on, each {@code lag} late.
   */
  public SimReplica replica(
      String name,
      java.util.concurrent.ScheduledExecutorService tasks,
      SplittableRandom replicaRandom,
      SimReplica.Lag lag) {
    replicas.removeIf(SimReplica::isDetached);
    SimReplica r =
        new SimReplica(
            this,
            name,
            clock,
            tasks,
            replicaRandom,
            lag,
            trace,
            MetaStateMachine.restore(machine.snapshot(), settings));
    replicas.add(r);
    return r;
  }

  /**
   * The leader is lost: answers in flight are lost (their callers hear OUTCOME_UNKNOWN), and
   * proposals are refused (UNAVAILABLE) for {@code electionMillis}.
   */
  public void leaderChange(long electionMillis) {
    term++;
    stats.leaderChanges++;
    electionUntilNanos = clock.nanos() + TimeUnit.MILLISECONDS.toNanos(electionMillis);
    trace.add("meta leaderChange term=" + term + " electionMillis=" + electionMillis);
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    Objects.requireNonNull(command, "command");
    if (closed) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.UNAVAILABLE, "simulated metastore is closed"));
    }
    stats.proposals++;
    CompletableFuture<Applied> f = new CompletableFuture<>();
    long latency = 1 + random.nextInt(5);
    int fault = 0; // 0 none, 1 refused, 2 lost before log, 3 answer lost
    if (faultsEnabled) {
      if (random.nextDouble() < faults.delayed()) {
        latency += faults.delayMillis();
        stats.delayed++;
      }
      double r = random.nextDouble();
      if (r < faults.refused()) {
        fault = 1;
      } else if (r < faults.refused() + faults.lostBeforeLog()) {
        fault = 2;
      } else if (r < faults.refused() + faults.lostBeforeLog() + faults.answerLost()) {
        fault = 3;
      }
    }
    if (command instanceof CommitWalGroup g) {
      stats.commitGroups++;
      stats.groupedObjects += g.members().size();
      if (fault != 0) {
        stats.groupFaults++;
      }
    }
    if (command instanceof CommitWalGroup || command instanceof dev.loam.meta.command.CommitWal) {
      trackCommit(command.origin().nodeId(), f, fault != 0 || latency > 5);
    }
    int f0 = fault;
    long t = term;
    scheduler.schedule(
        () -> {
          if (f0 == 1 || clock.nanos() < electionUntilNanos) {
            stats.refused++;
            trace.add("meta refused " + kind(command));
            f.completeExceptionally(
                new LoamException(
                    Kind.UNAVAILABLE, "simulated: no leader, not logged " + kind(command)));
          } else if (f0 == 2) {
            stats.lostBeforeLog++;
            trace.add("meta lostBeforeLog " + kind(command));
            answerLater(f, null, "lost before logging");
          } else {
            arrive(command, f, t, f0 == 3);
          }
        },
        latency,
        TimeUnit.MILLISECONDS);
    return f;
  }

  // Counts a WAL commit proposal made while others of its node are unanswered (pipelined), and a
  // fault or delay among proposals in flight together (pipelinedFaults).
  private void trackCommit(String node, CompletableFuture<Applied> answer, boolean faulted) {
    int[] open = unansweredCommits.computeIfAbsent(node, k -> new int[2]);
    if (open[0] > 0) {
      stats.pipelined++;
      if (faulted || open[1] > 0) {
        stats.pipelinedFaults++;
      }
    }
    open[0]++;
    if (faulted) {
      open[1]++;
    }
    answer.whenComplete(
        (a, e) -> {
          open[0]--;
          if (faulted) {
            open[1]--;
          }
        });
  }

  /** The proposal reached the leader: check its stamp, log and apply it, answer. */
  private void arrive(
      Command command, CompletableFuture<Applied> f, long proposedTerm, boolean lose) {
    long now = clock.millis();
    long stamp = command.origin().stampMillis();
    if (stamp > now + maxFutureStampMillis) {
      stats.futureStamp++;
      trace.add("meta futureStamp " + kind(command) + " stamp=" + stamp + " clock=" + now);
      Applied a =
          new Applied(
              machine.appliedIndex(),
              new Outcome.Rejected(
                  Outcome.RejectReason.FUTURE_STAMP,
                  "command stamped too far ahead of the metastore's clock node="
                      + command.origin().nodeId()
                      + " stamp="
                      + stamp
                      + " clock="
                      + now
                      + " maxFutureStampMillis="
                      + maxFutureStampMillis));
      answerLater(f, a, null);
      return;
    }
    byte[] encoded = CommandCodec.encode(command);
    Command logged = CommandCodec.decode(encoded);
    long index = machine.appliedIndex() + 1;
    Outcome outcome = machine.apply(index, logged);
    List<CompletableFuture<Void>> ready = watch.advance(index);
    trace.add(
        "meta apply index="
            + index
            + " "
            + kind(command)
            + " crc="
            + crc(encoded)
            + " outcome="
            + crc(outcomeBytes(outcome)));
    // A listener's exception propagates to the task that applied the command: in the simulation a
    // listener's bug is a failure to surface, not a line to log.
    watch.notifyApplied(
        index,
        logged,
        outcome,
        (l, e) -> {
          throw e;
        });
    ready.forEach(w -> w.complete(null));
    for (SimReplica r : replicas) {
      r.deliver(index, encoded);
    }
    Applied a = new Applied(index, outcome);
    if (lose) {
      stats.answerLost++;
      answerLater(f, null, "applied, answer lost");
      return;
    }
    long t = term;
    scheduler.schedule(
        () -> {
          if (term != t) {
            trace.add("meta answerLostToLeaderChange index=" + index);
            f.completeExceptionally(
                new LoamException(Kind.OUTCOME_UNKNOWN, "simulated leader change; index=" + index));
          } else {
            f.complete(a);
          }
        },
        1 + random.nextInt(5),
        TimeUnit.MILLISECONDS);
  }

  private void answerLater(CompletableFuture<Applied> f, Applied a, String lost) {
    scheduler.schedule(
        () -> {
          if (lost == null) {
            f.complete(a);
          } else {
            f.completeExceptionally(new LoamException(Kind.OUTCOME_UNKNOWN, "simulated: " + lost));
          }
        },
        lost == null ? 1 + random.nextInt(5) : 100 + random.nextInt(400),
        TimeUnit.MILLISECONDS);
  }

  private static String kind(Command c) {
    return c.getClass().getSimpleName() + "(" + c.origin().nodeId() + ")";
  }

  private static byte[] outcomeBytes(Outcome o) {
    try {
      return OutcomeCodec.encode(o);
    } catch (RuntimeException e) {
      return o.getClass().getName().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private static String crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return Long.toHexString(c.getValue());
  }

  @Override
  public <T> T read(Function<MetaReader, T> query) {
    return query.apply(machine.reader());
  }

  @Override
  public long appliedIndex() {
    return machine.appliedIndex();
  }

  @Override
  public CompletableFuture<Void> awaitApplied(long index) {
    return watch.await(
        index,
        () ->
            closed
                ? new LoamException(
                    Kind.UNAVAILABLE, "simulated metastore is closed index=" + index)
                : null);
  }

  @Override
  public void addApplyListener(ApplyListener listener) {
    watch.addListener(listener);
  }

  /**
   * Shared by every simulated node: only the simulation closes it. Pending {@link #awaitApplied}
   * futures fail with UNAVAILABLE, as the other metastores' do (the kit checks it).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    LoamException err = new LoamException(Kind.UNAVAILABLE, "simulated metastore is closed");
    watch.drain().forEach(w -> w.completeExceptionally(err));
  }
}
