package dev.loam.kafka.internal.cluster;

import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The topic configs the gateway maps onto stream settings: {@code retention.ms} (the stream's time
 * retention), {@code retention.bytes} (its size retention per partition) and {@code cleanup.policy}
 * ({@code delete}, or {@code compact} for a compacted stream). Each is {@code -1} (unlimited) or
 * positive, as Loam's stream settings are. Any other key, a value that does not parse, and {@code
 * compact,delete} (a policy Loam does not have) are refused with Kafka's INVALID_CONFIG naming the
 * key.
 */
public final class TopicConfigs {
  public static final String RETENTION_MS = "retention.ms";
  public static final String RETENTION_BYTES = "retention.bytes";
  public static final String CLEANUP_POLICY = "cleanup.policy";

  /** The keys served, in the order DescribeConfigs lists them. */
  public static final List<String> KEYS = List.of(CLEANUP_POLICY, RETENTION_BYTES, RETENTION_MS);

  private TopicConfigs() {}

  /** The defaults of a topic created without configs: unlimited retention, delete policy. */
  public static String defaultValue(String key) {
    return switch (key) {
      case RETENTION_MS, RETENTION_BYTES -> "-1";
      case CLEANUP_POLICY -> "delete";
      default -> throw unknown(key);
    };
  }

  /** The current value of every served key of a stream. */
  public static Map<String, String> of(StreamDescription d) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(CLEANUP_POLICY, d.spec().compacted() ? "compact" : "delete");
    m.put(RETENTION_BYTES, Long.toString(d.spec().retentionBytes()));
    m.put(RETENTION_MS, Long.toString(d.spec().retentionMillis()));
    return m;
  }

  /** Adds one {@code key=value} to {@code update}; INVALID_CONFIG naming the key if refused. */
  public static StreamUpdate apply(StreamUpdate update, String key, String value) {
    if (key == null) {
      throw new InvalidConfigurationException("a config name is required");
    }
    return switch (key) {
      case RETENTION_MS -> update.withRetentionMillis(retention(key, value));
      case RETENTION_BYTES -> update.withRetentionBytes(retention(key, value));
      case CLEANUP_POLICY -> update.withCompacted(compacted(value));
      default -> throw unknown(key);
    };
  }

  /** The spec of a new stream with {@code configs} applied to the defaults. */
  public static StreamSpec spec(int partitions, Map<String, String> configs) {
    StreamUpdate u = StreamUpdate.none();
    for (Map.Entry<String, String> e : configs.entrySet()) {
      u = apply(u, e.getKey(), e.getValue());
    }
    StreamSpec base = StreamSpec.standard(partitions);
    return new StreamSpec(
        partitions,
        base.durabilityClass(),
        u.retentionMillis() == null ? base.retentionMillis() : u.retentionMillis(),
        u.retentionBytes() == null ? base.retentionBytes() : u.retentionBytes(),
        u.compacted() == null ? base.compacted() : u.compacted());
  }

  private static long retention(String key, String value) {
    long v;
    try {
      v = Long.parseLong(value == null ? "" : value.trim());
    } catch (NumberFormatException e) {
      throw new InvalidConfigurationException(
          "config " + key + " must be -1 or a positive integer value=" + value);
    }
    if (v != -1 && v <= 0) {
      throw new InvalidConfigurationException(
          "config " + key + " must be -1 (unlimited) or positive value=" + value);
    }
    return v;
  }

  private static boolean compacted(String value) {
    String v = value == null ? "" : value.trim();
    return switch (v) {
      case "compact" -> true;
      case "delete" -> false;
      default ->
          throw new InvalidConfigurationException(
              "config "
                  + CLEANUP_POLICY
                  + " must be delete or compact (Loam has no combined policy) value="
                  + value);
    };
  }

  private static InvalidConfigurationException unknown(String key) {
    return new InvalidConfigurationException(
        "config " + key + " is not supported; supported: " + String.join(", ", KEYS));
  }
}
