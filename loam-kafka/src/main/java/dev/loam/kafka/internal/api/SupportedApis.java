package dev.loam.kafka.internal.api;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs the gateway serves and their version ranges: exactly what ApiVersions advertises, and
 * the only requests the gateway parses. An instance holds the APIs that have a handler; the ranges
 * come from one table. The ranges are those of Apache Kafka 4.3, the versions current kafka-clients
 * 4.x and librdkafka 2.x negotiate (a client picks the highest version both sides know). They are
 * written out here, not read from kafka-clients, so that a newer kafka-clients on the class path
 * never advertises a version whose meaning the handlers do not implement.
 */
public final class SupportedApis {
  /** An inclusive version range. */
  public record Range(short min, short max) {
    public boolean contains(short v) {
      return v >= min && v <= max;
    }
  }

  private static final Map<ApiKeys, Range> RANGES;

  static {
    Map<ApiKeys, Range> m = new EnumMap<>(ApiKeys.class);
    m.put(ApiKeys.PRODUCE, range(3, 13));
    m.put(ApiKeys.FETCH, range(4, 18));
    m.put(ApiKeys.LIST_OFFSETS, range(1, 11));
    m.put(ApiKeys.METADATA, range(0, 13));
    m.put(ApiKeys.API_VERSIONS, range(0, 4));
    m.put(ApiKeys.CREATE_TOPICS, range(2, 7));
    m.put(ApiKeys.DELETE_TOPICS, range(1, 6));
    m.put(ApiKeys.INIT_PRODUCER_ID, range(0, 5));
    m.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, range(2, 4));
    m.put(ApiKeys.DESCRIBE_CONFIGS, range(1, 4));
    m.put(ApiKeys.CREATE_PARTITIONS, range(0, 3));
    m.put(ApiKeys.INCREMENTAL_ALTER_CONFIGS, range(0, 1));
    m.put(ApiKeys.DESCRIBE_CLUSTER, range(0, 2));
    m.put(ApiKeys.FIND_COORDINATOR, range(0, 6));
    m.put(ApiKeys.JOIN_GROUP, range(0, 9));
    m.put(ApiKeys.SYNC_GROUP, range(0, 5));
    m.put(ApiKeys.HEARTBEAT, range(0, 4));
    m.put(ApiKeys.LEAVE_GROUP, range(0, 5));
    // Version 10 names topics by id; 9 is what current clients need.
    m.put(ApiKeys.OFFSET_COMMIT, range(2, 9));
    m.put(ApiKeys.OFFSET_FETCH, range(1, 9));
    m.put(ApiKeys.LIST_GROUPS, range(0, 5));
    m.put(ApiKeys.DESCRIBE_GROUPS, range(0, 6));
    m.put(ApiKeys.DELETE_GROUPS, range(0, 2));
    m.put(ApiKeys.OFFSET_DELETE, range(0, 0));
    m.put(ApiKeys.CONSUMER_GROUP_HEARTBEAT, range(0, 1));
    m.put(ApiKeys.CONSUMER_GROUP_DESCRIBE, range(0, 1));
    m.put(ApiKeys.SASL_HANDSHAKE, range(0, 1));
    m.put(ApiKeys.SASL_AUTHENTICATE, range(0, 2));
    RANGES = Collections.unmodifiableMap(m);
  }

  private final Map<ApiKeys, Range> served;

  /** The APIs of {@code keys}, each with its range from the table; INVALID for one not in it. */
  public SupportedApis(java.util.Set<ApiKeys> keys) {
    Map<ApiKeys, Range> m = new EnumMap<>(ApiKeys.class);
    for (ApiKeys k : keys) {
      Range r = RANGES.get(k);
      if (r == null) {
        throw new IllegalArgumentException("no version range for API " + k);
      }
      m.put(k, r);
    }
    this.served = Collections.unmodifiableMap(m);
  }

  private static Range range(int min, int max) {
    return new Range((short) min, (short) max);
  }

  /** The version range of every API the gateway implements, in API key order. */
  public static Map<ApiKeys, Range> table() {
    return RANGES;
  }

  /** The served APIs with their ranges, in API key order. */
  public Map<ApiKeys, Range> served() {
    return served;
  }

  /** Whether {@code key} at {@code version} is served. */
  public boolean supports(ApiKeys key, short version) {
    Range r = served.get(key);
    return r != null && r.contains(version);
  }

  /** The ApiVersions response entries. */
  public ApiVersionCollection asApiVersions() {
    ApiVersionCollection c = new ApiVersionCollection();
    served.forEach(
        (k, r) ->
            c.add(new ApiVersion().setApiKey(k.id).setMinVersion(r.min()).setMaxVersion(r.max())));
    return c;
  }
}
