package dev.loam.api;

import java.time.Duration;
import java.util.Objects;

/**
 * A node's plain settings (STYLE.md §7): values with units, validated here. Components (store,
 * metastore, clock, executors) are passed to {@link LoamNode.Builder} separately.
 *
 * @param advertisedAddress the address other nodes and clients use to reach this node
 * @param zone the node's availability zone (empty if unknown)
 * @param slots capacity weight for placement (1 by default)
 * @param standardFlushInterval how long standard-class appends wait to share a WAL object (250 ms)
 * @param expressFlushInterval the same for express (5 ms)
 * @param walObjectMaxBytes a WAL object is flushed early once it reaches this size (8 MiB)
 * @param maxObjectsInFlight WAL objects of one class being written at once (4); their commits still
 *     go one at a time, in order
 * @param commitBudget no new PUT or commit attempt starts this long after the object's ULID time
 *     (60 s, stream-engine.txt §3)
 * @param maxBufferedBytes appends beyond this many unflushed bytes fail UNAVAILABLE (backpressure)
 * @param tailCacheBytes bytes of recently committed batches kept in memory for fetches
 * @param maxFetchWait the longest long-poll a fetch may ask for
 * @param maxWaitingFetches long-polls beyond this many fail UNAVAILABLE
 * @param retryBackoffInitial first delay before retrying a PUT or commit, doubled up to 1 s
 */
public record NodeSettings(
    String advertisedAddress,
    String zone,
    int slots,
    Duration standardFlushInterval,
    Duration expressFlushInterval,
    int walObjectMaxBytes,
    int maxObjectsInFlight,
    Duration commitBudget,
    long maxBufferedBytes,
    long tailCacheBytes,
    Duration maxFetchWait,
    int maxWaitingFetches,
    Duration retryBackoffInitial) {

  public NodeSettings {
    Objects.requireNonNull(advertisedAddress, "advertisedAddress");
    Objects.requireNonNull(zone, "zone");
    require(slots >= 1, "slots", slots);
    require(positive(standardFlushInterval), "standardFlushInterval", standardFlushInterval);
    require(positive(expressFlushInterval), "expressFlushInterval", expressFlushInterval);
    require(walObjectMaxBytes >= 1024, "walObjectMaxBytes", walObjectMaxBytes);
    require(
        maxObjectsInFlight >= 1 && maxObjectsInFlight <= 64,
        "maxObjectsInFlight",
        maxObjectsInFlight);
    require(positive(commitBudget), "commitBudget", commitBudget);
    require(maxBufferedBytes >= walObjectMaxBytes, "maxBufferedBytes", maxBufferedBytes);
    require(tailCacheBytes >= 0, "tailCacheBytes", tailCacheBytes);
    require(positive(maxFetchWait), "maxFetchWait", maxFetchWait);
    require(maxWaitingFetches >= 1, "maxWaitingFetches", maxWaitingFetches);
    require(positive(retryBackoffInitial), "retryBackoffInitial", retryBackoffInitial);
  }

  /** The spec's defaults (DESIGN.md "Defaults from the spec"). */
  public static NodeSettings defaults() {
    return new NodeSettings(
        "",
        "",
        1,
        Duration.ofMillis(250),
        Duration.ofMillis(5),
        8 << 20,
        4,
        Duration.ofSeconds(60),
        64L << 20,
        64L << 20,
        Duration.ofSeconds(60),
        100_000,
        Duration.ofMillis(10));
  }

  /** These settings with both flush intervals set to {@code interval}. */
  public NodeSettings withFlushInterval(Duration interval) {
    return new NodeSettings(
        advertisedAddress,
        zone,
        slots,
        interval,
        interval,
        walObjectMaxBytes,
        maxObjectsInFlight,
        commitBudget,
        maxBufferedBytes,
        tailCacheBytes,
        maxFetchWait,
        maxWaitingFetches,
        retryBackoffInitial);
  }

  /** These settings with another commit budget. */
  public NodeSettings withCommitBudget(Duration budget) {
    return new NodeSettings(
        advertisedAddress,
        zone,
        slots,
        standardFlushInterval,
        expressFlushInterval,
        walObjectMaxBytes,
        maxObjectsInFlight,
        budget,
        maxBufferedBytes,
        tailCacheBytes,
        maxFetchWait,
        maxWaitingFetches,
        retryBackoffInitial);
  }

  /** These settings with another tail-cache size (0 disables it). */
  public NodeSettings withTailCacheBytes(long bytes) {
    return new NodeSettings(
        advertisedAddress,
        zone,
        slots,
        standardFlushInterval,
        expressFlushInterval,
        walObjectMaxBytes,
        maxObjectsInFlight,
        commitBudget,
        maxBufferedBytes,
        bytes,
        maxFetchWait,
        maxWaitingFetches,
        retryBackoffInitial);
  }

  private static boolean positive(Duration d) {
    return d != null && !d.isNegative() && !d.isZero();
  }

  private static void require(boolean ok, String name, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("invalid node setting " + name + "=" + value);
    }
  }
}
