package dev.loam.test;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Contains Apache Ratis's JVM-wide threads: its timers, and its shaded gRPC's shared executors.
 * Ratis (3.x) schedules every timeout of every client and server of the JVM (request timeouts,
 * retries, election waits, the "repeated n times" summaries of its own log) on one static {@code
 * org.apache.ratis.util.TimeoutTimer}: eight {@link java.util.Timer}s, threads {@code
 * timer0..timer7}, created on first use and never cancelled. They are daemon threads, idle once the
 * servers are closed, but they outlive every replica, and a host's thread-leak check flags them.
 *
 * <p>The Ratis clusters of this harness count themselves in and out; when the last one closes, the
 * started timers are cancelled and their lazily-created slots emptied, so that the next Ratis user
 * of the JVM creates fresh ones. Tasks still queued then belong to the closed clients and servers
 * (a request's timeout check fires a request timeout after the request, and does nothing once it
 * was answered), so they are dropped rather than waited for, which would add seconds to every
 * close. Emptying a slot takes the slot's own monitor, the one Ratis takes to create the timer, so
 * a concurrent first use either gets the old timer before it is cancelled or creates a new one.
 *
 * <p>Ratis's shaded gRPC keeps its executor ({@code grpc-default-executor-*}) and event loops
 * ({@code grpc-default-boss-ELG-*}, {@code grpc-default-worker-ELG-*}) as JVM-wide shared
 * resources, released one second after their last user closed by a {@code grpc-shared-destroyer}
 * thread, and Netty's {@code globalEventExecutor} thread ends after a second without tasks. Nothing
 * needs to be done about them but to wait: when the last cluster closes, {@link #release} waits
 * (bounded) for every timer and gRPC thread that appeared while clusters ran.
 *
 * <p>This reaches into two private fields of Ratis by reflection. If they are not there (another
 * Ratis version) or not accessible (Ratis on the module path), nothing is changed and the reason is
 * logged at INFO: the threads then remain, as they would without the harness. A host that runs
 * Ratis servers of its own in the same JVM, outside this harness, loses their queued timeouts when
 * the last cluster closes; it should close its servers first.
 */
final class RatisThreads {
  private static final Logger LOG = LoggerFactory.getLogger(RatisThreads.class);

  private static int open;

  /** The threads alive when the first open cluster started: not the harness's to wait for. */
  private static java.util.Set<Thread> preexisting = java.util.Set.of();

  private RatisThreads() {}

  /** A Ratis cluster of this harness starts. */
  static synchronized void acquire() {
    if (open++ == 0) {
      preexisting = java.util.Set.copyOf(Thread.getAllStackTraces().keySet());
    }
  }

  /**
   * A Ratis cluster of this harness closed; stops the timers if it was the last one, waiting up to
   * {@code wait} for their threads to end.
   */
  static void release(Duration wait) {
    synchronized (RatisThreads.class) {
      if (--open > 0) {
        return;
      }
    }
    long deadline = System.nanoTime() + wait.toNanos();
    boolean timersStopped = false;
    try {
      timersStopped = stopTimers();
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.info(
          "cannot stop the Ratis timer threads, they stay until the JVM exits: {}", e.toString());
    }
    awaitSharedThreads(deadline, timersStopped ? "timer[0-9]+|grpc-.*" : "grpc-.*");
  }

  /** Cancels the started timers; false if a cluster started meanwhile. */
  private static boolean stopTimers() throws ReflectiveOperationException {
    Class<?> timerClass = Class.forName("org.apache.ratis.util.TimeoutTimer");
    Object timer = timerClass.getMethod("getInstance").invoke(null);
    Field timersField = timerClass.getDeclaredField("timers");
    timersField.setAccessible(true);
    Field value = Class.forName("org.apache.ratis.util.MemoizedBase").getDeclaredField("value");
    value.setAccessible(true);
    for (Object slot : (List<?>) timersField.get(timer)) {
      synchronized (slot) {
        synchronized (RatisThreads.class) {
          if (open > 0) {
            return false; // a cluster started meanwhile
          }
        }
        Timer t = (Timer) value.get(slot);
        if (t != null) {
          value.set(slot, null);
          t.cancel();
        }
      }
    }
    return true;
  }

  /**
   * Waits, until {@code deadline} (a nanoTime), for the threads named by {@code names} to end;
   * stops waiting if a cluster starts meanwhile.
   */
  private static void awaitSharedThreads(long deadline, String names) {
    // Timer.cancel() lets a timer's thread end, and Ratis's shaded gRPC releases its shared
    // executors and event loops a second after their last channel or server closed
    // (SharedResourceHolder), whose closing can start Netty's global executor for a last second.
    // Wait until none of those threads is left, so that a leak check right after close sees none;
    // only threads that appeared while the clusters ran are waited for.
    while (true) {
      Thread left = null;
      for (Thread th : Thread.getAllStackTraces().keySet()) {
        if (!preexisting.contains(th) && th.isAlive() && th.getName().matches(names)) {
          left = th;
          break;
        }
      }
      long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
      synchronized (RatisThreads.class) {
        if (open > 0 || remainingMillis <= 0) {
          return;
        }
      }
      if (left == null) {
        awaitNettyGlobalExecutor(remainingMillis);
        return;
      }
      try {
        left.join(Math.min(remainingMillis, 100));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Waits until the shaded Netty's {@code GlobalEventExecutor} thread has ended (it ends by itself
   * a second after its last task); returns at once if it is not running.
   */
  private static void awaitNettyGlobalExecutor(long millis) {
    try {
      Class<?> g =
          Class.forName("org.apache.ratis.thirdparty.io.netty.util.concurrent.GlobalEventExecutor");
      Object instance = g.getField("INSTANCE").get(null);
      g.getMethod("awaitInactivity", long.class, java.util.concurrent.TimeUnit.class)
          .invoke(instance, millis, java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.lang.reflect.InvocationTargetException e) {
      // IllegalStateException: its thread was never started.
    } catch (ReflectiveOperationException | RuntimeException e) {
      LOG.debug("cannot wait for Netty's global executor: {}", e.toString());
    }
  }
}
