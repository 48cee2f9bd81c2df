package dev.loam.http.internal;

import dev.loam.api.ReadStats;
import dev.loam.api.WriterStats;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Request counts and latencies measured in the HTTP layer, rendered with the node's writer counters
 * as Prometheus text (exposition format 0.0.4). Label sets are bounded: routes are a fixed list and
 * statuses are the few the server answers.
 */
public final class HttpMetrics {
  /** Upper bounds of the latency histogram, in seconds. */
  static final double[] BUCKETS = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60
  };

  private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
  private final Map<String, Histogram> latency = new ConcurrentHashMap<>();
  final LongAdder producedRecords = new LongAdder();
  final LongAdder producedBytes = new LongAdder();
  final LongAdder fetchedRecords = new LongAdder();
  final LongAdder fetchedBytes = new LongAdder();
  final AtomicInteger longPolls = new AtomicInteger();
  final AtomicInteger connections = new AtomicInteger();

  private static final class Histogram {
    final LongAdder[] counts = new LongAdder[BUCKETS.length];
    final LongAdder count = new LongAdder();
    final LongAdder sumNanos = new LongAdder();

    Histogram() {
      for (int i = 0; i < counts.length; i++) {
        counts[i] = new LongAdder();
      }
    }

    void record(long nanos) {
      double s = nanos / 1e9;
      for (int i = 0; i < BUCKETS.length; i++) {
        if (s <= BUCKETS[i]) {
          counts[i].increment();
          break;
        }
      }
      count.increment();
      sumNanos.add(nanos);
    }
  }

  /** Records one answered request. */
  public void record(String route, String method, int status, long nanos) {
    requests
        .computeIfAbsent(route + "\u0000" + method + "\u0000" + status, k -> new LongAdder())
        .increment();
    latency.computeIfAbsent(route, k -> new Histogram()).record(nanos);
  }

  public int longPollsInFlight() {
    return longPolls.get();
  }

  public int connections() {
    return connections.get();
  }

  /** Prometheus text without the node's read-path counters. */
  public String render(WriterStats writer) {
    return render(writer, null);
  }

  /**
   * Prometheus text; {@code writer} and {@code reads} may be null when the server was built on a
   * bare Log.
   */
  public String render(WriterStats writer, ReadStats reads) {
    StringBuilder b = new StringBuilder(4096);
    b.append(
        "# HELP loam_http_requests_total HTTP requests answered, by route, method and status.\n");
    b.append("# TYPE loam_http_requests_total counter\n");
    requests.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              String[] k = e.getKey().split("\u0000", 3);
              b.append("loam_http_requests_total{route=\"")
                  .append(k[0])
                  .append("\",method=\"")
                  .append(k[1])
                  .append("\",status=\"")
                  .append(k[2])
                  .append("\"} ")
                  .append(e.getValue().sum())
                  .append('\n');
            });
    b.append(
        "# HELP loam_http_request_duration_seconds Time from a request's arrival to its"
            + " response being handed to the socket, by route.\n");
    b.append("# TYPE loam_http_request_duration_seconds histogram\n");
    latency.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              Histogram h = e.getValue();
              long cumulative = 0;
              for (int i = 0; i < BUCKETS.length; i++) {
                cumulative += h.counts[i].sum();
                b.append("loam_http_request_duration_seconds_bucket{route=\"")
                    .append(e.getKey())
                    .append("\",le=\"")
                    .append(num(BUCKETS[i]))
                    .append("\"} ")
                    .append(cumulative)
                    .append('\n');
              }
              long n = h.count.sum();
              b.append("loam_http_request_duration_seconds_bucket{route=\"")
                  .append(e.getKey())
                  .append("\",le=\"+Inf\"} ")
                  .append(n)
                  .append('\n');
              b.append("loam_http_request_duration_seconds_sum{route=\"")
                  .append(e.getKey())
                  .append("\"} ")
                  .append(num(h.sumNanos.sum() / 1e9))
                  .append('\n');
              b.append("loam_http_request_duration_seconds_count{route=\"")
                  .append(e.getKey())
                  .append("\"} ")
                  .append(n)
                  .append('\n');
            });
    counter(
        b,
        "loam_http_produced_records_total",
        "Records acknowledged to produce requests.",
        producedRecords.sum());
    counter(
        b,
        "loam_http_produced_bytes_total",
        "Key and value bytes acknowledged to produce requests.",
        producedBytes.sum());
    counter(
        b,
        "loam_http_fetched_records_total",
        "Records returned by fetch requests.",
        fetchedRecords.sum());
    counter(
        b,
        "loam_http_fetched_bytes_total",
        "Key and value bytes returned by fetch requests.",
        fetchedBytes.sum());
    gauge(
        b,
        "loam_http_long_polls_in_flight",
        "Fetches waiting for records (long-polls).",
        longPolls.get());
    gauge(b, "loam_http_connections", "Open HTTP connections.", connections.get());
    if (writer != null) {
      counter(b, "loam_writer_puts_total", "WAL object PUT attempts.", writer.puts());
      counter(
          b,
          "loam_writer_put_bytes_total",
          "Bytes sent in WAL object PUT attempts.",
          writer.putBytes());
      counter(b, "loam_writer_commits_total", "Commit proposals made.", writer.commits());
      counter(b, "loam_writer_flushes_total", "WAL objects committed.", writer.flushes());
      gauge(
          b,
          "loam_writer_put_latency_mean_seconds",
          "Mean WAL object PUT latency.",
          writer.meanPutMillis() / 1000);
      gauge(
          b,
          "loam_writer_commit_latency_mean_seconds",
          "Mean commit latency.",
          writer.meanCommitMillis() / 1000);
      gauge(
          b,
          "loam_writer_batches_per_flush_mean",
          "Mean partition batches per WAL object.",
          writer.meanBatchesPerFlush());
    }
    if (reads != null) {
      counter(
          b,
          "loam_read_tail_cache_hits_total",
          "Entries served from the tail cache.",
          reads.tailHits());
      counter(
          b,
          "loam_read_disk_cache_hits_total",
          "Entries served from the disk cache.",
          reads.diskHits());
      counter(
          b,
          "loam_read_disk_cache_misses_total",
          "Disk cache lookups that missed.",
          reads.diskMisses());
      counter(
          b,
          "loam_read_disk_cache_corrupt_total",
          "Disk cache files dropped for failing their check.",
          reads.diskCorrupt());
      counter(
          b,
          "loam_read_object_gets_total",
          "Ranged GETs sent to the object store.",
          reads.objectGets());
      counter(
          b,
          "loam_read_object_get_retries_total",
          "Object-store GETs repeated after a transient refusal (throttling, 5xx, reset).",
          reads.objectGetRetries());
      counter(
          b,
          "loam_read_object_get_bytes_total",
          "Bytes read from the object store.",
          reads.objectGetBytes());
      counter(
          b,
          "loam_read_coalesced_waits_total",
          "Loads that shared another load's GET.",
          reads.coalescedWaits());
      counter(
          b,
          "loam_read_segment_index_gets_total",
          "GETs of segment batch indexes (footers).",
          reads.segmentIndexGets());
      counter(
          b,
          "loam_read_segment_index_hits_total",
          "Segment reads served by a cached batch index.",
          reads.segmentIndexHits());
      counter(
          b,
          "loam_read_wal_merged_gets_total",
          "WAL object GETs that served ranges of several readers.",
          reads.walMergedGets());
      counter(
          b,
          "loam_read_wal_merged_ranges_total",
          "Ranges served by merged WAL object GETs.",
          reads.walMergedRanges());
      counter(
          b,
          "loam_read_wal_read_ahead_hits_total",
          "WAL ranges served from whole objects held in memory (no GET).",
          reads.walReadAheadHits());
      counter(
          b,
          "loam_read_wal_read_ahead_evictions_total",
          "WAL objects dropped from the read-ahead memory.",
          reads.walReadAheadEvictions());
      gauge(
          b,
          "loam_read_wal_read_ahead_bytes",
          "Bytes of WAL objects held by the read-ahead.",
          reads.walReadAheadBytes());
      gauge(
          b, "loam_read_disk_cache_bytes", "Bytes held by the disk cache.", reads.diskCacheBytes());
    }
    return b.toString();
  }

  private static void counter(StringBuilder b, String name, String help, long v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" counter\n");
    b.append(name).append(' ').append(v).append('\n');
  }

  private static void gauge(StringBuilder b, String name, String help, double v) {
    b.append("# HELP ").append(name).append(' ').append(help).append('\n');
    b.append("# TYPE ").append(name).append(" gauge\n");
    b.append(name).append(' ').append(num(v)).append('\n');
  }

  private static String num(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%s", v);
  }
}
