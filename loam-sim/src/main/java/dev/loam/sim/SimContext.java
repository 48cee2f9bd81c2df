package dev.loam.sim;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * What the harness, the actors and the checks of one run share: the seed, the one clock and
 * scheduler, the trace, the counters that end up in {@link Simulation.Result#counts()}, and the
 * number of client operations still waiting for their answer (healing runs until it is zero, so
 * every operation gets its verdict).
 *
 * <p>Single-threaded like everything in the simulation: only tasks of the {@link SimScheduler}
 * touch it.
 */
public final class SimContext {
  /** The one namespace every stream of a run lives in. */
  public static final String NS = "sim";

  private final long seed;
  private final SimClock clock;
  private final SimScheduler scheduler;
  private final Trace trace;
  private final Map<String, Long> counts = new LinkedHashMap<>();
  private final List<String> schedule = new ArrayList<>();
  private int pendingOps;

  SimContext(long seed, SimClock clock, SimScheduler scheduler, Trace trace) {
    this.seed = seed;
    this.clock = clock;
    this.scheduler = scheduler;
    this.trace = trace;
  }

  /** The root seed every random stream of the run derives from ({@link Seeds}). */
  public long seed() {
    return seed;
  }

  /** The true simulated clock (nodes have skewable views of it). */
  public SimClock clock() {
    return clock;
  }

  /** The one scheduler every task of the run goes through. */
  public SimScheduler scheduler() {
    return scheduler;
  }

  /** The canonical event log whose hash identifies the run. */
  public Trace trace() {
    return trace;
  }

  /**
   * Adds a line to the run's schedule: the settings, streams and consumers drawn from the seed and
   * every planned fault, printed by {@link Simulation.Result#report()}.
   */
  public void planned(String line) {
    schedule.add(line);
  }

  List<String> schedule() {
    return List.copyOf(schedule);
  }

  /** Adds one to counter {@code k}. */
  public void count(String k) {
    counts.merge(k, 1L, Long::sum);
  }

  /** Adds {@code v} to counter {@code k}. */
  public void add(String k, long v) {
    counts.merge(k, v, Long::sum);
  }

  /** Sets counter {@code k} to {@code v}. */
  public void put(String k, long v) {
    counts.put(k, v);
  }

  /** The counters in the order they were first touched. */
  Map<String, Long> counts() {
    return Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }

  /** A client operation was sent; {@link #opDone()} when its answer arrives. */
  public void opStarted() {
    pendingOps++;
  }

  /** The answer of an operation counted by {@link #opStarted()} arrived. */
  public void opDone() {
    pendingOps--;
  }

  /** Client operations sent and not yet answered. */
  public int pendingOps() {
    return pendingOps;
  }

  /**
   * The failure under the future's wrappers ({@link CompletionException}, {@link
   * ExecutionException}).
   */
  public static Throwable unwrap(Throwable e) {
    Throwable t = e;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The failure's kind; anything that is not a {@link LoamException} counts as INTERNAL. */
  public static Kind kind(Throwable e) {
    return unwrap(e) instanceof LoamException le ? le.kind() : Kind.INTERNAL;
  }
}
