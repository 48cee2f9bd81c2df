package dev.loam.testing;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Waits until a condition on background progress holds (a counter in stats, a cache scan), with a
 * deadline: for effects that complete no future the test can hold. Never a fixed sleep.
 */
public final class Eventually {
  private Eventually() {}

  /** Polls {@code cond} until it holds; fails naming {@code what} after 10 s. */
  public static void await(BooleanSupplier cond, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
