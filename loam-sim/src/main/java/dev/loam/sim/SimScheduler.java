package dev.loam.sim;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A deterministic, single-threaded {@link ScheduledExecutorService}: a queue of tasks ordered by
 * (deadline, sequence) on a {@link SimClock}, run one at a time by whoever drives the simulation
 * ({@link #step()}, {@link #runUntilIdle()}, {@link #runFor(Duration)}). No threads, no sleeps:
 * running a task first moves the clock to its deadline. {@code execute} enqueues at the current
 * time behind everything already due now, so FIFO order holds among same-time tasks.
 *
 * <p>Shutdown: after {@link #shutdown()} new tasks are rejected; delayed and periodic tasks are
 * dropped (as {@code SystemDrivers.scheduler} does), tasks due now still run. {@link
 * #shutdownNow()} drops everything. Blocking methods ({@code invokeAll}, {@code invokeAny}, {@code
 * awaitTermination} with tasks left) would deadlock the one simulation thread and throw instead.
 *
 * <p>Not thread-safe: only the driving thread may call it (a task may schedule more tasks).
 */
public final class SimScheduler extends AbstractExecutorService
    implements ScheduledExecutorService {

  /** A tap for the trace: called before each task runs with its deadline and sequence. */
  public interface StepListener {
    void beforeStep(long deadlineNanos, long sequence, boolean periodic);
  }

  private final SimClock clock;
  private final PriorityQueue<Task<?>> queue = new PriorityQueue<>();
  private long nextSequence;
  private long steps;
  private int oneShotQueued;
  private boolean shutdown;
  private StepListener listener = (d, s, p) -> {};
  private final java.util.ArrayList<Throwable> uncaught = new java.util.ArrayList<>();

  /** Tasks of paused processes that came due, in the order they came due. */
  private final java.util.ArrayList<Task<?>> held = new java.util.ArrayList<>();

  public SimScheduler(SimClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  public SimClock clock() {
    return clock;
  }

  public void onStep(StepListener l) {
    this.listener = Objects.requireNonNull(l);
  }

  /** Tasks run so far. */
  public long steps() {
    return steps;
  }

  /** Tasks queued (cancelled ones are removed at once). */
  public int queued() {
    return queue.size();
  }

  // ------------------------------------------------------------------ driving

  /** Runs the next task (moving the clock to its deadline); false if nothing is queued. */
  public boolean step() {
    Task<?> t = queue.poll();
    if (t == null) {
      return false;
    }
    if (!t.periodic()) {
      oneShotQueued--;
    }
    clock.advanceTo(Math.max(clock.nanos(), t.deadline));
    if (t.process != null && t.process.paused) {
      // A paused process runs nothing; its due work waits for resume (a SIGSTOP or a long GC).
      held.add(t);
      return true;
    }
    steps++;
    listener.beforeStep(t.deadline, t.sequence, t.periodic());
    t.run();
    return true;
  }

  /**
   * Runs tasks until only periodic ones (timers that never end by themselves) are left, or none.
   * Throws if that takes more than {@code maxSteps}: a livelock is a finding, not a hang.
   */
  public void runUntilIdle(long maxSteps) {
    long limit = steps + maxSteps;
    while (oneShotQueued > 0) {
      if (steps >= limit) {
        throw new IllegalStateException(
            "not idle after maxSteps=" + maxSteps + " queued=" + queue.size());
      }
      step();
    }
  }

  /** {@link #runUntilIdle(long)} with a bound of ten million steps. */
  public void runUntilIdle() {
    runUntilIdle(10_000_000L);
  }

  /** Runs every task due within {@code d} from now, then moves the clock to now + d. */
  public void runFor(Duration d) {
    long end = Math.addExact(clock.nanos(), d.toNanos());
    while (!queue.isEmpty() && queue.peek().deadline <= end) {
      step();
    }
    clock.advanceTo(Math.max(clock.nanos(), end));
  }

  /**
   * Runs tasks until {@code done} holds (checked before each step); false if the queue ran dry or
   * {@code maxSteps} passed first.
   */
  public boolean runUntil(BooleanSupplier done, long maxSteps) {
    long limit = steps + maxSteps;
    while (!done.getAsBoolean()) {
      if (steps >= limit || !step()) {
        return done.getAsBoolean();
      }
    }
    return true;
  }

  // ------------------------------------------------------------------ processes

  /**
   * The scheduler as one simulated process sees it: the same queue, but the process can be {@link
   * Process#pause() paused} (its due tasks are held, its timers do not fire) and resumed (what it
   * missed runs at once, in order). A node built on a process's executor is a node that can stop
   * renewing without crashing, and come back with its old epoch.
   */
  public Process process(String name) {
    return new Process(name);
  }

  /** One simulated process's view of the scheduler; see {@link #process(String)}. */
  public final class Process extends AbstractExecutorService implements ScheduledExecutorService {
    private final String name;
    private boolean paused;

    private Process(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    public String name() {
      return name;
    }

    public boolean paused() {
      return paused;
    }

    /** From now on nothing of this process runs until {@link #resume()}. */
    public void pause() {
      paused = true;
    }

    /** Runs what the process missed, in the order it came due, then continues normally. */
    public void resume() {
      if (!paused) {
        return;
      }
      paused = false;
      List<Task<?>> mine = new java.util.ArrayList<>();
      held.removeIf(
          t -> {
            if (t.process == this) {
              mine.add(t);
              return true;
            }
            return false;
          });
      for (Task<?> t : mine) {
        if (t.isCancelled()) {
          continue;
        }
        t.deadline = clock.nanos();
        enqueueAgain(t);
      }
    }

    @Override
    public void execute(Runnable command) {
      Objects.requireNonNull(command, "command");
      Task<Void> t = new Task<>(Executors.callable(command, null), clock.nanos(), 0);
      t.fireAndForget = true;
      t.process = this;
      enqueue(t);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
      Objects.requireNonNull(command, "command");
      Task<Void> t = new Task<>(Executors.callable(command, null), deadline(delay, unit), 0);
      t.process = this;
      return enqueue(t);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
      Objects.requireNonNull(callable, "callable");
      Task<V> t = new Task<>(callable, deadline(delay, unit), 0);
      t.process = this;
      return enqueue(t);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(
        Runnable command, long initialDelay, long period, TimeUnit unit) {
      if (period <= 0) {
        throw new IllegalArgumentException("period=" + period);
      }
      Task<Void> t =
          new Task<>(
              Executors.callable(command, null),
              deadline(initialDelay, unit),
              unit.toNanos(period));
      t.process = this;
      return enqueue(t);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(
        Runnable command, long initialDelay, long delay, TimeUnit unit) {
      if (delay <= 0) {
        throw new IllegalArgumentException("delay=" + delay);
      }
      Task<Void> t =
          new Task<>(
              Executors.callable(command, null),
              deadline(initialDelay, unit),
              -unit.toNanos(delay));
      t.process = this;
      return enqueue(t);
    }

    /** The shared scheduler is never shut down by a process (nodes do not own it). */
    @Override
    public void shutdown() {}

    @Override
    public List<Runnable> shutdownNow() {
      return List.of();
    }

    @Override
    public boolean isShutdown() {
      return SimScheduler.this.isShutdown();
    }

    @Override
    public boolean isTerminated() {
      return SimScheduler.this.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return SimScheduler.this.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
      return "process " + name + (paused ? " (paused)" : "");
    }
  }

  // ------------------------------------------------------------------ ExecutorService

  @Override
  public void execute(Runnable command) {
    Objects.requireNonNull(command, "command");
    Task<Void> t = new Task<>(Executors.callable(command, null), clock.nanos(), 0);
    t.fireAndForget = true;
    enqueue(t);
  }

  /**
   * Failures thrown by tasks given to {@link #execute} (nobody holds their future, so a thread pool
   * would lose them); a simulation treats any as a bug.
   */
  public List<Throwable> uncaught() {
    return List.copyOf(uncaught);
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
    Objects.requireNonNull(command, "command");
    return enqueue(new Task<Void>(Executors.callable(command, null), deadline(delay, unit), 0));
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
    Objects.requireNonNull(callable, "callable");
    return enqueue(new Task<>(callable, deadline(delay, unit), 0));
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable command, long initialDelay, long period, TimeUnit unit) {
    if (period <= 0) {
      throw new IllegalArgumentException("period=" + period);
    }
    return enqueue(
        new Task<Void>(
            Executors.callable(command, null), deadline(initialDelay, unit), unit.toNanos(period)));
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable command, long initialDelay, long delay, TimeUnit unit) {
    if (delay <= 0) {
      throw new IllegalArgumentException("delay=" + delay);
    }
    return enqueue(
        new Task<Void>(
            Executors.callable(command, null), deadline(initialDelay, unit), -unit.toNanos(delay)));
  }

  @Override
  public void shutdown() {
    shutdown = true;
    // Timers do not survive shutdown; steps due now still run (they complete callers' futures).
    queue.removeIf(
        t -> {
          boolean drop = t.periodic() || t.deadline > clock.nanos();
          if (drop) {
            t.cancelQuietly();
            if (!t.periodic()) {
              oneShotQueued--;
            }
          }
          return drop;
        });
  }

  @Override
  public List<Runnable> shutdownNow() {
    shutdown = true;
    List<Runnable> left = List.copyOf(queue);
    queue.forEach(Task::cancelQuietly);
    queue.clear();
    oneShotQueued = 0;
    return left;
  }

  @Override
  public boolean isShutdown() {
    return shutdown;
  }

  @Override
  public boolean isTerminated() {
    return shutdown && queue.isEmpty();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) {
    if (isTerminated()) {
      return true;
    }
    throw new UnsupportedOperationException(
        "awaitTermination would block the simulation thread; drive the scheduler instead");
  }

  @Override
  public <T> List<java.util.concurrent.Future<T>> invokeAll(
      Collection<? extends Callable<T>> tasks) {
    throw new UnsupportedOperationException("invokeAll would block the simulation thread");
  }

  @Override
  public <T> List<java.util.concurrent.Future<T>> invokeAll(
      Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
    throw new UnsupportedOperationException("invokeAll would block the simulation thread");
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks) {
    throw new UnsupportedOperationException("invokeAny would block the simulation thread");
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
    throw new UnsupportedOperationException("invokeAny would block the simulation thread");
  }

  // ------------------------------------------------------------------ internals

  private long deadline(long delay, TimeUnit unit) {
    long d = Math.max(0, unit.toNanos(delay));
    return Math.addExact(clock.nanos(), d);
  }

  private <V> Task<V> enqueue(Task<V> t) {
    if (shutdown) {
      throw new RejectedExecutionException("simulated scheduler is shut down");
    }
    t.sequence = nextSequence++;
    queue.add(t);
    if (!t.periodic()) {
      oneShotQueued++;
    }
    return t;
  }

  private void remove(Task<?> t) {
    if (queue.remove(t) && !t.periodic()) {
      oneShotQueued--;
    }
    held.remove(t);
  }

  /** A held task back in the queue (a new sequence: after what is already due now). */
  private void enqueueAgain(Task<?> t) {
    t.sequence = nextSequence++;
    queue.add(t);
    if (!t.periodic()) {
      oneShotQueued++;
    }
  }

  /**
   * A queued task; {@code period} 0 for one-shot, positive for fixed rate, negative for fixed delay
   * (as in {@code ScheduledThreadPoolExecutor}).
   */
  private final class Task<V> extends FutureTask<V>
      implements RunnableScheduledFuture<V>, Comparable<Delayed> {
    private long deadline;
    private long sequence;
    private final long period;
    private boolean fireAndForget;
    private Process process;

    Task(Callable<V> callable, long deadline, long period) {
      super(callable);
      this.deadline = deadline;
      this.period = period;
    }

    @Override
    public boolean isPeriodic() {
      return period != 0;
    }

    boolean periodic() {
      return period != 0;
    }

    @Override
    public long getDelay(TimeUnit unit) {
      return unit.convert(deadline - clock.nanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
      if (o == this) {
        return 0;
      }
      if (o instanceof SimScheduler.Task<?> t) {
        int c = Long.compare(deadline, t.deadline);
        return c != 0 ? c : Long.compare(sequence, t.sequence);
      }
      return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
    }

    @Override
    public void run() {
      if (!periodic()) {
        super.run();
        if (fireAndForget && !isCancelled()) {
          try {
            get();
          } catch (java.util.concurrent.ExecutionException e) {
            uncaught.add(e.getCause());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        return;
      }
      if (runAndReset() && !shutdown) {
        deadline = period > 0 ? deadline + period : clock.nanos() - period;
        enqueue(this);
      }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean c = super.cancel(false);
      if (c) {
        remove(this);
      }
      return c;
    }

    void cancelQuietly() {
      super.cancel(false);
    }
  }
}
