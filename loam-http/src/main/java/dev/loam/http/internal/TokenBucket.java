package dev.loam.http.internal;

import java.util.function.LongSupplier;

/**
 * A token bucket of bytes: refilled at {@code bytesPerSecond} up to {@code burstBytes}, starting
 * full. Time comes from an injected nanosecond clock (tests advance it by hand).
 *
 * <p>A request larger than the burst could never fit, so it is admitted once the bucket is full and
 * leaves the bucket in debt: the long-run rate still holds. Thread-safe.
 */
public final class TokenBucket {
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private final long bytesPerSecond;
  private final long burstBytes;
  private final LongSupplier nanoClock;
  private double tokens;
  private long lastNanos;

  public TokenBucket(long bytesPerSecond, long burstBytes, LongSupplier nanoClock) {
    if (bytesPerSecond < 1 || burstBytes < 1) {
      throw new IllegalArgumentException(
          "bytesPerSecond=" + bytesPerSecond + " burstBytes=" + burstBytes);
    }
    this.bytesPerSecond = bytesPerSecond;
    this.burstBytes = burstBytes;
    this.nanoClock = nanoClock;
    this.tokens = burstBytes;
    this.lastNanos = nanoClock.getAsLong();
  }

  /**
   * Takes {@code bytes} if the bucket holds them (or, for a request above the burst, if it is
   * full). Returns 0 when taken, otherwise the nanoseconds until the same request would be admitted
   * (at least 1); nothing is taken then.
   */
  public synchronized long tryAcquire(long bytes) {
    refill();
    double need = Math.min(bytes, burstBytes);
    if (tokens >= need) {
      tokens -= bytes;
      return 0;
    }
    double wait = Math.ceil((need - tokens) * NANOS_PER_SECOND / bytesPerSecond);
    return Math.max(1, (long) Math.min(wait, Long.MAX_VALUE));
  }

  /** Whether the bucket is full now (it is then indistinguishable from a new one). */
  public synchronized boolean isFull() {
    refill();
    return tokens >= burstBytes;
  }

  /** The bytes the bucket holds now (negative while in debt). */
  public synchronized double available() {
    refill();
    return tokens;
  }

  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  public long burstBytes() {
    return burstBytes;
  }

  private void refill() {
    long now = nanoClock.getAsLong();
    long elapsed = now - lastNanos;
    if (elapsed <= 0) {
      return;
    }
    lastNanos = now;
    tokens = Math.min(burstBytes, tokens + (double) elapsed * bytesPerSecond / NANOS_PER_SECOND);
  }
}
