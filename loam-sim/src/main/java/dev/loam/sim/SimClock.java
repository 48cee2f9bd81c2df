package dev.loam.sim;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/**
 * The simulated time of one run, in nanoseconds since the epoch. Only the {@link SimScheduler}
 * moves it (to the deadline of the task it runs next), so time never passes while code runs: a step
 * takes zero simulated time, exactly as in a discrete-event simulation.
 *
 * <p>Not thread-safe: a simulation is one thread.
 */
public final class SimClock implements InstantSource {
  /** 2026-05-29T00:26:40Z: a fixed start, so traces do not depend on when a run happens. */
  public static final long DEFAULT_START_MILLIS = 1_780_000_000_000L;

  private long nowNanos;

  public SimClock(long startMillis) {
    this.nowNanos = Math.multiplyExact(startMillis, 1_000_000L);
  }

  public SimClock() {
    this(DEFAULT_START_MILLIS);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochSecond(0, nowNanos);
  }

  @Override
  public long millis() {
    return Math.floorDiv(nowNanos, 1_000_000L);
  }

  public long nanos() {
    return nowNanos;
  }

  /** Moves time forward to {@code nanos}; time never goes back. */
  void advanceTo(long nanos) {
    if (nanos < nowNanos) {
      throw new IllegalStateException("time goes forward only now=" + nowNanos + " to=" + nanos);
    }
    nowNanos = nanos;
  }

  /**
   * A view of this clock shifted by an offset that can change during a run: one node's skewed clock
   * (a clock step is {@link Skewed#setOffset}).
   */
  public Skewed skewed(Duration offset) {
    return new Skewed(this, offset);
  }

  /** A clock that reads the simulation's clock plus an offset. */
  public static final class Skewed implements InstantSource {
    private final SimClock base;
    private Duration offset;

    private Skewed(SimClock base, Duration offset) {
      this.base = base;
      this.offset = offset;
    }

    public Duration offset() {
      return offset;
    }

    public void setOffset(Duration d) {
      this.offset = d;
    }

    @Override
    public Instant instant() {
      return base.instant().plus(offset);
    }

    @Override
    public long millis() {
      return base.millis() + offset.toMillis();
    }
  }
}
