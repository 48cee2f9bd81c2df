package dev.loam.kafka;

import dev.loam.error.LoamException;
import java.time.Duration;
import java.util.Objects;

/**
 * The consumer-group coordinator's limits (docs/reference/kafka.md "Consumer groups"), with Kafka's
 * broker defaults.
 *
 * @param minSessionTimeout the shortest session timeout a member may ask for (Kafka's {@code
 *     group.min.session.timeout.ms}, 6 s); shorter is INVALID_SESSION_TIMEOUT
 * @param maxSessionTimeout the longest (Kafka's {@code group.max.session.timeout.ms}, 30 min)
 * @param initialRebalanceDelay how long the first rebalance of an empty group waits for more
 *     members (Kafka's {@code group.initial.rebalance.delay.ms}, 3 s), so consumers starting
 *     together land in one generation; 0 rebalances at the first join
 * @param consumerSessionTimeout how long a member of a KIP-848 group ({@code
 *     group.protocol=consumer}) may go without a heartbeat before it is removed (Kafka's {@code
 *     group.consumer.session.timeout.ms}, 45 s)
 * @param consumerHeartbeatInterval the heartbeat interval told to KIP-848 members (Kafka's {@code
 *     group.consumer.heartbeat.interval.ms}, 5 s); below the session timeout
 */
public record GroupSettings(
    Duration minSessionTimeout,
    Duration maxSessionTimeout,
    Duration initialRebalanceDelay,
    Duration consumerSessionTimeout,
    Duration consumerHeartbeatInterval) {
  public GroupSettings {
    Objects.requireNonNull(minSessionTimeout, "minSessionTimeout");
    Objects.requireNonNull(maxSessionTimeout, "maxSessionTimeout");
    Objects.requireNonNull(initialRebalanceDelay, "initialRebalanceDelay");
    Objects.requireNonNull(consumerSessionTimeout, "consumerSessionTimeout");
    Objects.requireNonNull(consumerHeartbeatInterval, "consumerHeartbeatInterval");
    if (consumerHeartbeatInterval.toMillis() < 1
        || consumerHeartbeatInterval.compareTo(consumerSessionTimeout) >= 0
        || consumerSessionTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw invalid(
          "the consumer heartbeat interval must be 1 ms..consumerSessionTimeout, and that at most"
              + " 1 h consumerHeartbeatInterval="
              + consumerHeartbeatInterval
              + " consumerSessionTimeout="
              + consumerSessionTimeout);
    }
    if (minSessionTimeout.toMillis() < 1 || minSessionTimeout.compareTo(maxSessionTimeout) > 0) {
      throw invalid(
          "group min session timeout must be 1 ms..maxSessionTimeout minSessionTimeout="
              + minSessionTimeout
              + " maxSessionTimeout="
              + maxSessionTimeout);
    }
    if (maxSessionTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw invalid(
          "group max session timeout must be at most 1 h maxSessionTimeout=" + maxSessionTimeout);
    }
    if (initialRebalanceDelay.isNegative()
        || initialRebalanceDelay.compareTo(Duration.ofMinutes(5)) > 0) {
      throw invalid(
          "group initial rebalance delay must be within 0..5 min initialRebalanceDelay="
              + initialRebalanceDelay);
    }
  }

  /** Kafka's broker defaults: 6 s, 30 min, 3 s; 45 s and 5 s for KIP-848 groups. */
  public static GroupSettings defaults() {
    return new GroupSettings(
        Duration.ofSeconds(6),
        Duration.ofMinutes(30),
        Duration.ofSeconds(3),
        Duration.ofSeconds(45),
        Duration.ofSeconds(5));
  }

  /** The classic limits given, Kafka's defaults for KIP-848 groups. */
  public static GroupSettings classic(
      Duration minSessionTimeout, Duration maxSessionTimeout, Duration initialRebalanceDelay) {
    return new GroupSettings(
        minSessionTimeout,
        maxSessionTimeout,
        initialRebalanceDelay,
        Duration.ofSeconds(45),
        Duration.ofSeconds(5));
  }

  /** The same with the KIP-848 session timeout and heartbeat interval given. */
  public GroupSettings withConsumerProtocol(Duration sessionTimeout, Duration heartbeatInterval) {
    return new GroupSettings(
        minSessionTimeout,
        maxSessionTimeout,
        initialRebalanceDelay,
        sessionTimeout,
        heartbeatInterval);
  }

  private static LoamException invalid(String message) {
    return new LoamException(LoamException.Kind.INVALID, message);
  }
}
