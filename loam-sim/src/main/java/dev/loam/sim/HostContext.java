package dev.loam.sim;

import dev.loam.api.Log;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * What a {@link HostWorkload} sees of a running {@link Simulation}: the simulated clock and
 * scheduler, a random stream of its own (so its draws never shift the harness's), the logs of the
 * nodes a client can reach now, and where to report a violation. Used from the simulation's thread
 * only.
 */
public final class HostContext {
  private final SimContext ctx;
  private final SimCluster cluster;
  private final Consumer<String> violations;
  private final SplittableRandom random;
  private long workloadEndNanos;
  private boolean awaitAllowed;

  HostContext(SimContext ctx, SimCluster cluster, Consumer<String> violations) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.violations = violations;
    this.random = Seeds.stream(ctx.seed(), "host");
  }

  /** The seed of the run. */
  public long seed() {
    return ctx.seed();
  }

  /** The host's own random stream, derived from the seed. */
  public SplittableRandom random() {
    return random;
  }

  /** The true simulated clock. */
  public InstantSource clock() {
    return ctx.clock();
  }

  /** The simulated scheduler: what the host schedules there runs in simulated time. */
  public ScheduledExecutorService scheduler() {
    return ctx.scheduler();
  }

  /** The simulated instant ({@link SimClock#nanos()}) at which the workload phase ends. */
  public long workloadEnd() {
    return workloadEndNanos;
  }

  /** Whether the workload phase is still on. */
  public boolean workloadRunning() {
    return ctx.clock().nanos() < workloadEndNanos;
  }

  /**
   * The {@link Log}s of the nodes a client can reach now (started, not paused), in node order. A
   * node may crash at any time: take a log for each action rather than keep one.
   */
  public List<Log> runningLogs() {
    return cluster.nodes().stream()
        .filter(SimCluster.Node::running)
        .map(n -> n.node().log())
        .toList();
  }

  /** One of {@link #runningLogs()}, drawn from the host's stream; empty when none is running. */
  public Optional<Log> anyLog() {
    List<Log> logs = runningLogs();
    return logs.isEmpty() ? Optional.empty() : Optional.of(logs.get(random.nextInt(logs.size())));
  }

  /**
   * Runs the simulation until {@code f} is done and answers its value (or throws its failure, as
   * {@code join()} does). Only in {@link HostWorkload#setup} and {@link HostWorkload#validate}:
   * inside the workload the simulation is already running, and an action must compose instead.
   */
  public <T> T await(CompletableFuture<T> f) {
    if (!awaitAllowed) {
      throw new IllegalStateException(
          "HostContext.await is for HostWorkload.setup and validate; during the workload compose"
              + " the futures (thenCompose, whenComplete) seed="
              + seed());
    }
    if (!ctx.scheduler().runUntil(f::isDone, 5_000_000)) {
      throw new IllegalStateException("a host step never completed seed=" + seed());
    }
    return f.join();
  }

  /** Reports a broken invariant of the host: the run fails with it, and its seed replays it. */
  public void violation(String what) {
    violations.accept("host: " + what);
  }

  /** Adds a line to the run's trace (part of its hash, shown at the end of a failing report). */
  public void trace(String line) {
    ctx.trace().add("host " + line);
  }

  void workloadEnds(long nanos) {
    this.workloadEndNanos = nanos;
  }

  void allowAwait(boolean allowed) {
    this.awaitAllowed = allowed;
  }
}
