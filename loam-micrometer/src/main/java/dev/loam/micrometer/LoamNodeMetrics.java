package dev.loam.micrometer;

import dev.loam.api.LoamNode;
import dev.loam.api.ReadStats;
import dev.loam.api.WriterStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Binds a {@link LoamNode}'s metrics to a Micrometer {@link MeterRegistry}: the write path ({@link
 * LoamNode#writerStats()}: object-store PUTs, commits, WAL flushes and their mean latencies) and
 * the read path ({@link LoamNode#readStats()}: tail-cache, disk-cache and read-ahead hits,
 * object-store GETs and their bytes). The meters and their meaning are listed in
 * docs/reference/metrics.md.
 *
 * <pre>{@code
 * new LoamNodeMetrics(node).bindTo(registry);
 * }</pre>
 *
 * <p>Counts are {@link FunctionCounter}s and levels are {@link Gauge}s that read the node's
 * counters when the registry is scraped; nothing is sampled in between and no thread is started.
 * Every meter carries the tags {@code loam.node} and {@code loam.cluster} (plus any given to the
 * constructor), so several nodes in one JVM bind to one registry side by side. The meters hold the
 * node weakly, as Micrometer does for every function-based meter: once the host lets go of a closed
 * node, its meters report NaN and the registry may drop them ({@link MeterRegistry#remove}).
 *
 * <p>Thread-safe; {@link #bindTo} may be called for several registries.
 */
public final class LoamNodeMetrics implements MeterBinder {
  /** The prefix of every meter name. */
  public static final String PREFIX = "loam.";

  /** The base unit of the latency gauges, as Prometheus and OTLP expect it. */
  private static final String SECONDS = "seconds";

  private final LoamNode node;
  private final Tags tags;

  /** Binds {@code node}'s metrics with the node and cluster tags only. */
  public LoamNodeMetrics(LoamNode node) {
    this(node, Tags.empty());
  }

  /**
   * Binds {@code node}'s metrics with {@code extraTags} added to the node and cluster tags (for
   * example the host's service name).
   */
  public LoamNodeMetrics(LoamNode node, Iterable<Tag> extraTags) {
    this.node = Objects.requireNonNull(node, "node");
    Objects.requireNonNull(extraTags, "extraTags");
    this.tags =
        Tags.of("loam.node", node.nodeId(), "loam.cluster", node.clusterId()).and(extraTags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    bindWriter(registry);
    bindReader(registry);
  }

  private void bindWriter(MeterRegistry r) {
    writeCounter(
        r, "writer.puts", null, "Object-store PUT attempts of WAL objects", WriterStats::puts);
    writeCounter(
        r,
        "writer.put.bytes",
        BaseUnits.BYTES,
        "Bytes sent in object-store PUT attempts",
        WriterStats::putBytes);
    writeCounter(r, "writer.commits", null, "Metastore commit proposals", WriterStats::commits);
    writeCounter(
        r, "writer.flushes", null, "WAL objects written and committed", WriterStats::flushes);
    writeGauge(
        r,
        "writer.put.latency.mean",
        SECONDS,
        "Mean object-store PUT latency over the node's life",
        w -> w.meanPutMillis() / 1000);
    writeGauge(
        r,
        "writer.commit.latency.mean",
        SECONDS,
        "Mean metastore commit latency over the node's life",
        w -> w.meanCommitMillis() / 1000);
    writeGauge(
        r,
        "writer.batches.per.flush.mean",
        null,
        "Mean record batches carried by one WAL object",
        WriterStats::meanBatchesPerFlush);
  }

  private void bindReader(MeterRegistry r) {
    readCounter(
        r,
        "read.tail.cache.hits",
        null,
        "Loads served from the in-memory tail cache",
        ReadStats::tailHits);
    readCounter(
        r,
        "read.disk.cache.hits",
        null,
        "Loads served from the local disk cache",
        ReadStats::diskHits);
    readCounter(
        r,
        "read.disk.cache.misses",
        null,
        "Disk-cache lookups that found nothing",
        ReadStats::diskMisses);
    readCounter(
        r,
        "read.disk.cache.corrupt",
        null,
        "Disk-cache files that failed their check and were deleted",
        ReadStats::diskCorrupt);
    readCounter(
        r,
        "read.disk.cache.writes",
        null,
        "Ranges written to the disk cache",
        ReadStats::diskWrites);
    readCounter(
        r,
        "read.disk.cache.evictions",
        null,
        "Disk-cache entries evicted to keep the byte bound",
        ReadStats::diskEvictions);
    readCounter(
        r,
        "read.object.gets",
        null,
        "Ranged object-store GETs of WAL objects and segments",
        ReadStats::objectGets);
    readCounter(
        r,
        "read.object.get.retries",
        null,
        "Object-store GETs repeated after a transient refusal (throttling, 5xx, reset)",
        ReadStats::objectGetRetries);
    readCounter(
        r,
        "read.object.get.bytes",
        BaseUnits.BYTES,
        "Bytes returned by object-store GETs of the read path",
        ReadStats::objectGetBytes);
    readCounter(
        r,
        "read.coalesced.waits",
        null,
        "Loads that shared a GET or disk read already in flight",
        ReadStats::coalescedWaits);
    readCounter(
        r,
        "read.segment.index.gets",
        null,
        "GETs of segment footers and batch indexes",
        ReadStats::segmentIndexGets);
    readCounter(
        r,
        "read.segment.index.hits",
        null,
        "Uses of a segment batch index already parsed in memory",
        ReadStats::segmentIndexHits);
    readCounter(
        r,
        "read.wal.merged.gets",
        null,
        "GETs of a WAL object that served several ranges at once",
        ReadStats::walMergedGets);
    readCounter(
        r,
        "read.wal.merged.ranges",
        null,
        "Ranges served by merged WAL GETs",
        ReadStats::walMergedRanges);
    readCounter(
        r,
        "read.wal.read.ahead.hits",
        null,
        "WAL ranges served from read-ahead bytes without a GET of their own",
        ReadStats::walReadAheadHits);
    readCounter(
        r,
        "read.wal.read.ahead.evictions",
        null,
        "WAL objects evicted from the read-ahead memory",
        ReadStats::walReadAheadEvictions);
    readGauge(
        r,
        "read.wal.read.ahead.bytes",
        BaseUnits.BYTES,
        "Bytes of WAL objects the read-ahead memory holds now",
        ReadStats::walReadAheadBytes);
    readGauge(
        r,
        "read.disk.cache.bytes",
        BaseUnits.BYTES,
        "Bytes the disk cache holds now",
        ReadStats::diskCacheBytes);
    readGauge(
        r,
        "read.disk.cache.entries",
        null,
        "Ranges the disk cache holds now",
        ReadStats::diskCacheEntries);
  }

  private void writeCounter(
      MeterRegistry r, String name, String unit, String help, ToLongFunction<WriterStats> f) {
    FunctionCounter.builder(PREFIX + name, node, n -> f.applyAsLong(n.writerStats()))
        .description(help)
        .baseUnit(unit)
        .tags(tags)
        .register(r);
  }

  private void writeGauge(
      MeterRegistry r, String name, String unit, String help, ToDoubleFunction<WriterStats> f) {
    Gauge.builder(PREFIX + name, node, n -> f.applyAsDouble(n.writerStats()))
        .description(help)
        .baseUnit(unit)
        .tags(tags)
        .register(r);
  }

  private void readCounter(
      MeterRegistry r, String name, String unit, String help, ToLongFunction<ReadStats> f) {
    FunctionCounter.builder(PREFIX + name, node, n -> f.applyAsLong(n.readStats()))
        .description(help)
        .baseUnit(unit)
        .tags(tags)
        .register(r);
  }

  private void readGauge(
      MeterRegistry r, String name, String unit, String help, ToLongFunction<ReadStats> f) {
    Gauge.builder(PREFIX + name, node, n -> f.applyAsLong(n.readStats()))
        .description(help)
        .baseUnit(unit)
        .tags(tags)
        .register(r);
  }
}
