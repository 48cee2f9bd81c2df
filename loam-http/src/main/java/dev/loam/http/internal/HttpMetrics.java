package dev.loam.http.internal;

import dev.loam.api.LoamNode;
import dev.loam.micrometer.LoamNodeMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server's meters, in a Micrometer registry: requests by route, method and status, their
 * latency as a histogram of fixed buckets ({@link #BUCKETS}), produced and fetched records and
 * bytes, long-polls and connections, and (when the server runs on a {@link LoamNode}) the node's
 * write and read meters through {@link LoamNodeMetrics}. {@code GET /metrics} renders the registry
 * with Micrometer's Prometheus registry when {@code micrometer-registry-prometheus} is on the class
 * path ({@link #exposition()}); without it the meters are kept in a plain registry and {@code
 * /metrics} is not served. Label sets are bounded: routes are a fixed list and statuses are the few
 * the server answers.
 */
public final class HttpMetrics {
  /** Upper bounds of the latency histogram, in seconds. */
  static final double[] BUCKETS = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
  };

  private static final Duration[] SLOS = slos();
  private static final Logger LOG = LoggerFactory.getLogger(HttpMetrics.class);
  private static final java.util.concurrent.atomic.AtomicBoolean NOTED_ABSENT =
      new java.util.concurrent.atomic.AtomicBoolean();

  /** The class whose presence tells that micrometer-registry-prometheus is on the class path. */
  static final String PROMETHEUS_REGISTRY_CLASS =
      "io.micrometer.prometheusmetrics.PrometheusMeterRegistry";

  /** Whether micrometer-registry-prometheus is on the class path (looked up, not initialized). */
  private static final boolean PROMETHEUS = present(PROMETHEUS_REGISTRY_CLASS);

  /** The Prometheus text of a registry. */
  public interface Exposition {
    /** The exposition's content type (Prometheus text format 0.0.4). */
    String contentType();

    /** The registry's meters as exposition text, read now. */
    String scrape();
  }

  private final MeterRegistry registry;
  private final Optional<Exposition> exposition;
  private final Map<String, Counter> requests = new ConcurrentHashMap<>();
  private final Map<String, Timer> latency = new ConcurrentHashMap<>();
  private final Counter producedRecords;
  private final Counter producedBytes;
  private final Counter fetchedRecords;
  private final Counter fetchedBytes;
  final AtomicInteger longPolls = new AtomicInteger();
  final AtomicInteger connections = new AtomicInteger();

  /** Meters without the node's (a server built on a bare {@code Log}). */
  public HttpMetrics() {
    this(null);
  }

  /** Meters of a server on {@code node} (null: a bare {@code Log}), with the node's meters. */
  public HttpMetrics(LoamNode node) {
    if (PROMETHEUS) {
      PrometheusExposition p = new PrometheusExposition();
      this.registry = p.registry();
      this.exposition = Optional.of(p);
    } else {
      this.registry = new SimpleMeterRegistry();
      this.exposition = Optional.empty();
      if (!NOTED_ABSENT.getAndSet(true)) {
        LOG.info(
            "GET /metrics is not served: io.micrometer:micrometer-registry-prometheus is not on"
                + " the class path (docs/reference/dependencies.md)");
      }
    }
    this.producedRecords =
        counter("loam.http.produced.records", null, "Records acknowledged to produce requests.");
    this.producedBytes =
        counter(
            "loam.http.produced.bytes",
            BaseUnits.BYTES,
            "Key and value bytes acknowledged to produce requests.");
    this.fetchedRecords =
        counter("loam.http.fetched.records", null, "Records returned by fetch requests.");
    this.fetchedBytes =
        counter(
            "loam.http.fetched.bytes",
            BaseUnits.BYTES,
            "Key and value bytes returned by fetch requests.");
    Gauge.builder("loam.http.long.polls.in.flight", longPolls, AtomicInteger::get)
        .description("Fetches waiting for records (long-polls).")
        .register(registry);
    Gauge.builder("loam.http.connections", connections, AtomicInteger::get)
        .description("Open HTTP connections.")
        .register(registry);
    if (node != null) {
      new LoamNodeMetrics(node).bindTo(registry);
    }
  }

  private Counter counter(String name, String unit, String help) {
    return Counter.builder(name).baseUnit(unit).description(help).register(registry);
  }

  /** Records one answered request. */
  public void record(String route, String method, int status, long nanos) {
    requests
        .computeIfAbsent(
            route + "\u0000" + method + "\u0000" + status,
            k ->
                Counter.builder("loam.http.requests")
                    .description("HTTP requests answered, by route, method and status.")
                    .tag("route", route)
                    .tag("method", method)
                    .tag("status", Integer.toString(status))
                    .register(registry))
        .increment();
    latency
        .computeIfAbsent(
            route,
            k ->
                Timer.builder("loam.http.request.duration")
                    .description(
                        "Time from a request's arrival to its response being handed to the"
                            + " socket, by route.")
                    .tag("route", route)
                    .serviceLevelObjectives(SLOS)
                    .register(registry))
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** Counts an acknowledged produce. */
  public void produced(int records, long bytes) {
    producedRecords.increment(records);
    producedBytes.increment(bytes);
  }

  /** Counts a fetch answer. */
  public void fetched(int records, long bytes) {
    fetchedRecords.increment(records);
    fetchedBytes.increment(bytes);
  }

  public int longPollsInFlight() {
    return longPolls.get();
  }

  public int connections() {
    return connections.get();
  }

  /** The registry holding every meter of the server. */
  public MeterRegistry registry() {
    return registry;
  }

  /** The Prometheus exposition; empty without {@code micrometer-registry-prometheus}. */
  public Optional<Exposition> exposition() {
    return exposition;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, HttpMetrics.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static Duration[] slos() {
    Duration[] d = new Duration[BUCKETS.length];
    for (int i = 0; i < BUCKETS.length; i++) {
      d[i] = Duration.ofNanos(Math.round(BUCKETS[i] * 1e9));
    }
    return d;
  }
}
