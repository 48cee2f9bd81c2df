package dev.loam.core.runtime;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Which threads are Loam's own: every thread {@link SystemDrivers} creates (a node's scheduler, its
 * I/O pools, its callback thread), and the thread of a simulation while it runs the simulated
 * world. A Loam thread must never wait for a Loam future: the future may need that very thread to
 * complete, so the wait would never end. The futures of {@code LoamNode.log()} check this and
 * refuse such a wait with {@code dev.loam.api.BlockingOnLoamThreadException}.
 */
public final class LoamThreads {
  private static final ThreadLocal<String> OWNER = new ThreadLocal<>();
  private static final ThreadLocal<Consumer<RuntimeException>> ON_REFUSAL = new ThreadLocal<>();

  private LoamThreads() {}

  /** Whether the current thread is one of Loam's. */
  public static boolean isLoamThread() {
    return OWNER.get() != null;
  }

  /** What the current thread belongs to (a thread name prefix or a simulation), or null. */
  public static String currentOwner() {
    return OWNER.get();
  }

  /** Runs {@code r} with the current thread marked as Loam's ({@code owner} says whose). */
  public static void runAs(String owner, Runnable r) {
    callAs(
        owner,
        () -> {
          r.run();
          return null;
        });
  }

  /** As {@link #runAs}, answering what {@code s} answers; the previous mark is restored after. */
  public static <T> T callAs(String owner, Supplier<T> s) {
    return callAs(owner, null, s);
  }

  /**
   * As {@link #callAs(String, Supplier)}, and every blocking wait refused on this thread meanwhile
   * is also reported to {@code onRefusal} (before it is thrown to the caller, who may swallow it):
   * how a simulation turns a host's {@code join()} into a reported violation.
   */
  public static <T> T callAs(String owner, Consumer<RuntimeException> onRefusal, Supplier<T> s) {
    String previous = OWNER.get();
    Consumer<RuntimeException> previousObserver = ON_REFUSAL.get();
    OWNER.set(owner);
    if (onRefusal != null) {
      ON_REFUSAL.set(onRefusal);
    }
    try {
      return s.get();
    } finally {
      restore(OWNER, previous);
      restore(ON_REFUSAL, previousObserver);
    }
  }

  /** Tells the current thread's observer (if any) that {@code refusal} is about to be thrown. */
  public static void refused(RuntimeException refusal) {
    Consumer<RuntimeException> c = ON_REFUSAL.get();
    if (c != null) {
      c.accept(refusal);
    }
  }

  private static <T> void restore(ThreadLocal<T> local, T previous) {
    if (previous == null) {
      local.remove();
    } else {
      local.set(previous);
    }
  }
}
