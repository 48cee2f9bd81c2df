package dev.loam.sim;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.AppliedIndexWatch;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One node's replica of the {@link SimMetastore}: its own {@link MetaStateMachine}, fed the
 * leader's log in order but late, as a Ratis follower is (docs/design/simulation.md "Lagging
 * replicas"). The node reads, watches and waits on this replica; its proposals go to the leader and
 * complete once this replica has applied them, as {@code RatisMetastore}'s do. So a node can act on
 * a state that is behind the leader's, and a read with a consistency token must wait.
 *
 * <p>The lag of each delivered command is drawn from the replica's own random stream ({@link Lag});
 * order is kept. The replica applies on its node's process, so a paused process stops applying too.
 * A replica starts from the leader's state (a snapshot install) and is detached when its node's
 * process ends: waiters then fail UNAVAILABLE and nothing more is applied.
 */
public final class SimReplica implements Metastore {
  /**
   * How late a replica applies what the leader committed.
   *
   * @param maxMillis each command arrives 0 to this many milliseconds after the leader applied it
   * @param stallProbability the chance that one delivery stalls the replica
   * @param stallMaxMillis a stall delays that delivery (and everything after it) up to this long
   */
  public record Lag(long maxMillis, double stallProbability, long stallMaxMillis) {
    public static Lag none() {
      return new Lag(0, 0, 0);
    }

    @Override
    public String toString() {
      return String.format(
          java.util.Locale.ROOT,
          "lag{max=%dms stall=%.4f(%dms)}",
          maxMillis,
          stallProbability,
          stallMaxMillis);
    }
  }

  private record Delivery(long index, byte[] command) {}

  private final SimMetastore leader;
  private final String name;
  private final SimClock clock;
  private final ScheduledExecutorService tasks;
  private final SplittableRandom random;
  private final Lag lag;
  private final Trace trace;
  private final MetaStateMachine machine;
  private final AppliedIndexWatch watch;
  private final ArrayDeque<Delivery> pending = new ArrayDeque<>();
  private long lastArrivalNanos;
  private boolean detached;

  SimReplica(
      SimMetastore leader,
      String name,
      SimClock clock,
      ScheduledExecutorService tasks,
      SplittableRandom random,
      Lag lag,
      Trace trace,
      MetaStateMachine startState) {
    this.leader = leader;
    this.name = name;
    this.clock = clock;
    this.tasks = tasks;
    this.random = random;
    this.lag = lag;
    this.trace = trace;
    this.machine = startState;
    this.watch = new AppliedIndexWatch(startState.appliedIndex());
  }

  /** The leader applied {@code index}: deliver it here after this replica's lag, in order. */
  void deliver(long index, byte[] command) {
    if (detached) {
      return;
    }
    long delayMillis = lag.maxMillis() == 0 ? 0 : random.nextLong(lag.maxMillis() + 1);
    if (lag.stallProbability() > 0 && random.nextDouble() < lag.stallProbability()) {
      long stall = 1 + random.nextLong(Math.max(1, lag.stallMaxMillis()));
      trace.add("replica stall " + name + " index=" + index + " millis=" + stall);
      leader.stats().replicaStalls++;
      delayMillis += stall;
    }
    long now = clock.nanos();
    long at = Math.max(lastArrivalNanos, now + TimeUnit.MILLISECONDS.toNanos(delayMillis));
    lastArrivalNanos = at;
    pending.addLast(new Delivery(index, command));
    // Each task applies the oldest delivery, so equal arrival times cannot reorder the log.
    tasks.schedule(this::applyNext, at - now, TimeUnit.NANOSECONDS);
  }

  private void applyNext() {
    Delivery d = pending.pollFirst();
    if (detached || d == null) {
      return;
    }
    if (d.index() != machine.appliedIndex() + 1) {
      throw new IllegalStateException(
          "replica " + name + " got index=" + d.index() + " after " + machine.appliedIndex());
    }
    Command c = CommandCodec.decode(d.command());
    Outcome o = machine.apply(d.index(), c);
    List<CompletableFuture<Void>> ready = watch.advance(d.index());
    watch.notifyApplied(
        d.index(),
        c,
        o,
        (l, e) -> {
          throw e;
        });
    ready.forEach(w -> w.complete(null));
  }

  /** The node's process ended: apply nothing more; waiters fail UNAVAILABLE. */
  void detach() {
    if (detached) {
      return;
    }
    detached = true;
    pending.clear();
    LoamException err =
        new LoamException(Kind.UNAVAILABLE, "simulated replica detached replica=" + name);
    watch.drain().forEach(w -> w.completeExceptionally(err));
  }

  boolean isDetached() {
    return detached;
  }

  /** How many commands this replica is behind the leader. */
  public long behind() {
    return leader.appliedIndex() - machine.appliedIndex();
  }

  @Override
  public CompletableFuture<Applied> propose(Command command) {
    Objects.requireNonNull(command, "command");
    if (detached) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.UNAVAILABLE, "simulated replica detached replica=" + name));
    }
    return leader
        .propose(command)
        .thenCompose(
            a ->
                awaitApplied(a.index())
                    .handle(
                        (v, e) -> {
                          if (e != null) {
                            throw new LoamException(
                                Kind.OUTCOME_UNKNOWN,
                                "committed but this replica stopped before applying it index="
                                    + a.index()
                                    + " replica="
                                    + name);
                          }
                          return a;
                        }));
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
            detached
                ? new LoamException(
                    Kind.UNAVAILABLE,
                    "simulated replica detached replica=" + name + " index=" + index)
                : null);
  }

  /** A round trip to the leader for its applied index, then this replica catches up to it. */
  @Override
  public CompletableFuture<Void> awaitLatest() {
    CompletableFuture<Long> index = new CompletableFuture<>();
    tasks.schedule(
        () -> index.complete(leader.appliedIndex()), 1 + random.nextInt(5), TimeUnit.MILLISECONDS);
    return index.thenCompose(this::awaitApplied);
  }

  @Override
  public java.util.Optional<String> unavailableReason() {
    return leader.unavailableReason();
  }

  @Override
  public void addApplyListener(ApplyListener listener) {
    watch.addListener(listener);
  }

  /** A node never closes the metastore it was given; the harness detaches the replica. */
  @Override
  public void close() {}
}
