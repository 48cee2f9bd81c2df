package dev.loam.http.internal;

import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.error.LoamException.Kind;
import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * What every route handler shares: the {@link Log} it calls, the node (for health and metrics), the
 * limits and quotas it enforces, and the counters it adds to. One per server.
 */
public final class ApiContext {
  private final Log log;
  private final LoamNode node;
  private final HttpMetrics metrics;
  private final Api.Limits limits;
  private final IngestQuotas quotas;
  private volatile java.time.Duration dedupWindow = java.time.Duration.ofHours(1);

  ApiContext(Log log, LoamNode node, HttpMetrics metrics, Api.Limits limits, IngestQuotas quotas) {
    this.log = log;
    this.node = node;
    this.metrics = metrics;
    this.limits = limits;
    this.quotas = quotas;
  }

  /** How long CloudEvents ingest answers a retried source + id duplicate (default 1 h). */
  public java.time.Duration dedupWindow() {
    return dedupWindow;
  }

  void dedupWindow(java.time.Duration window) {
    this.dedupWindow = window;
  }

  /** The log every route calls. */
  public Log log() {
    return log;
  }

  /** The node, or null when the server was given only a {@link Log}. */
  public LoamNode node() {
    return node;
  }

  /** The limits the routes enforce. */
  public Api.Limits limits() {
    return limits;
  }

  /** The per-namespace ingest quotas a produce is charged to. */
  public IngestQuotas quotas() {
    return quotas;
  }

  /** Counts an acknowledged produce. */
  public void produced(int records, long bytes) {
    metrics.produced(records, bytes);
  }

  /** Counts a fetch answer. */
  public void fetched(int records, long bytes) {
    metrics.fetched(records, bytes);
  }

  /**
   * The Prometheus exposition of the HTTP meters and the node's write and read meters; empty
   * without micrometer-registry-prometheus on the class path.
   */
  public java.util.Optional<HttpMetrics.Exposition> metricsExposition() {
    return metrics.exposition();
  }

  /** Takes a long-poll slot, or refuses with 503 when all {@code maxLongPolls} are taken. */
  void claimLongPoll() {
    if (metrics.longPolls.incrementAndGet() > limits.maxLongPolls()) {
      metrics.longPolls.decrementAndGet();
      throw new ApiException(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "too_many_long_polls",
          Kind.UNAVAILABLE,
          "too many long-polls in flight maxLongPolls=" + limits.maxLongPolls());
    }
  }

  /** Gives back a slot taken by a request that was refused before its call started. */
  void releaseLongPoll() {
    metrics.longPolls.decrementAndGet();
  }
}
