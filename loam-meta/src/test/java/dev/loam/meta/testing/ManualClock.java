package dev.loam.meta.testing;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicLong;

/** A test clock that moves only when told to. Thread-safe. */
public final class ManualClock implements InstantSource {
  private final AtomicLong millis;

  public ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis.get());
  }

  @Override
  public long millis() {
    return millis.get();
  }

  /** Moves the clock forward (or back, for a negative duration). */
  public void advance(Duration d) {
    millis.addAndGet(d.toMillis());
  }

  public void set(long newMillis) {
    millis.set(newMillis);
  }
}
