package dev.loam.api;

import java.time.Duration;
import java.util.Objects;

/**
 * How a node takes part in stream ownership (ownership-and-routing.txt): how long a node may go
 * without renewing its registration before the others declare it dead and close its streams, and
 * how often the node renews, checks the others and claims the streams placed on it.
 *
 * @param livenessTimeout a node silent this long is declared dead (10 s; at least 1 s)
 * @param tickInterval how often the ownership step runs (250 ms); renewals go every {@code
 *     livenessTimeout / 4}
 * @param drainTimeout how long a leaving node waits for its transfers to complete (10 s)
 */
public record OwnershipSettings(
    Duration livenessTimeout, Duration tickInterval, Duration drainTimeout) {
  public OwnershipSettings {
    Objects.requireNonNull(livenessTimeout, "livenessTimeout");
    Objects.requireNonNull(tickInterval, "tickInterval");
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    if (livenessTimeout.toMillis() < 1000) {
      throw new IllegalArgumentException("livenessTimeout must be >= 1 s: " + livenessTimeout);
    }
    if (tickInterval.toMillis() < 1 || tickInterval.compareTo(livenessTimeout) >= 0) {
      throw new IllegalArgumentException(
          "tickInterval must be >= 1 ms and below livenessTimeout: " + tickInterval);
    }
    if (drainTimeout.isNegative()) {
      throw new IllegalArgumentException("drainTimeout must not be negative: " + drainTimeout);
    }
  }

  public static OwnershipSettings defaults() {
    return new OwnershipSettings(
        Duration.ofSeconds(10), Duration.ofMillis(250), Duration.ofSeconds(10));
  }

  /** The same with another liveness timeout (the tick shrinks to a tenth of it if needed). */
  public OwnershipSettings withLivenessTimeout(Duration timeout) {
    Duration tick = tickInterval.compareTo(timeout) < 0 ? tickInterval : timeout.dividedBy(10);
    return new OwnershipSettings(timeout, tick, drainTimeout);
  }

  /** How often the node renews its registration. */
  public Duration renewInterval() {
    return livenessTimeout.dividedBy(4);
  }
}
