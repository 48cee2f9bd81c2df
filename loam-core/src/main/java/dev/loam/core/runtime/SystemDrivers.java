package dev.loam.core.runtime;

import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

/**
 * The production defaults for the components a {@code LoamNode} takes from its builder: the real
 * clock, real entropy, real threads. Everything else in the core receives these injected, so a
 * simulation can pass its own.
 */
@SuppressForbidden(reason = "the one place that creates real clocks, entropy and threads")
public final class SystemDrivers {
  private SystemDrivers() {}

  /** The system clock. */
  public static InstantSource clock() {
    return InstantSource.system();
  }

  /** A generator seeded from the OS entropy source (for ULID randomness). */
  public static RandomGenerator random() {
    return new SplittableRandom(new SecureRandom().nextLong());
  }

  /**
   * Cryptographically strong randomness for API key ids, salts and secrets. Never seeded or
   * simulated: a test has no reason to replay a secret, and a guessable one is a vulnerability.
   */
  public static SecureRandom secureRandom() {
    return new SecureRandom();
  }

  /** A single daemon thread that runs a node's timers and its writer and reader steps. */
  public static ScheduledThreadPoolExecutor scheduler(String name) {
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, daemonFactory(name));
    s.setRemoveOnCancelPolicy(true);
    // On shutdown, queued steps still run (they complete callers' futures) but timers do not.
    s.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    s.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    return s;
  }

  /** A bounded pool of daemon threads for blocking I/O (file reads, writes and fsyncs). */
  public static ExecutorService ioPool(String name, int threads) {
    ThreadPoolExecutor p =
        new ThreadPoolExecutor(
            threads,
            threads,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(100_000),
            daemonFactory(name));
    p.allowCoreThreadTimeOut(true);
    return p;
  }

  /**
   * One daemon thread on which the futures of {@code LoamNode.log()} complete, so that a host's
   * callbacks never run on (and never hold up) the threads that write, read and commit.
   */
  public static ExecutorService callbackThread(String name) {
    return new ThreadPoolExecutor(
        1, 1, 0, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), daemonFactory(name));
  }

  private static ThreadFactory daemonFactory(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(() -> LoamThreads.runAs(name, r), name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
