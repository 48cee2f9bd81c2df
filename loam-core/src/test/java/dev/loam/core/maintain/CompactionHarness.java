package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.CompactionSettings;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.NodeSettings;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamSpec;
import dev.loam.core.ObjectLayout;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One node on an embedded metastore and an in-memory store with a compacted stream, a model of
 * every record appended, and the compaction invariants (docs/design/maintenance.md "Compacted
 * streams") checked against what fetches return. The store can "crash" the compactor right after a
 * compacted segment's PUT, before its swap.
 */
final class CompactionHarness implements AutoCloseable {
  static final long START = 1_780_000_000_000L;
  static final Duration TOMBSTONE_RETENTION = Duration.ofMinutes(30);
  static final String NS = "default";
  static final String STREAM = "c";

  static final class Clock implements InstantSource {
    final AtomicLong now = new AtomicLong(START);

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(now.get());
    }

    @Override
    public long millis() {
      return now.get();
    }
  }

  /** One appended record as the model knows it. */
  record Rec(long offset, byte[] key, byte[] value, long timestamp) {}

  final Clock clock = new Clock();
  final Random rnd;
  final int partitions;
  final CompactionSettings compaction;
  final NodeSettings settings;
  final ExecutorService metaExec = Executors.newSingleThreadExecutor();
  final ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
  final InMemoryObjectStore mem = new InMemoryObjectStore(clock);
  final AtomicBoolean crashAfterCompactedPut = new AtomicBoolean();
  final ObjectStore store;
  final Metastore meta;
  final List<List<Rec>> model = new ArrayList<>();
  final long retentionMillis;
  final Map<Integer, Long> lastLogStart = new HashMap<>();
  NodeRuntime node;
  StreamInfo info;

  /** Coverage counters across checks. */
  int supersededGone;

  int tombstonesGone;
  int compactedEntriesSeen;
  int trimmedByRetention;
  volatile int crashesInjected;

  CompactionHarness(Path tmp, long seed, int partitions, CompactionSettings compaction)
      throws Exception {
    this(tmp, seed, partitions, compaction, -1);
  }

  /**
   * As above, with a time retention on the compacted stream ({@code -1}: none), Kafka's
   * "compact,delete" cleanup policy.
   */
  CompactionHarness(
      Path tmp, long seed, int partitions, CompactionSettings compaction, long retentionMillis)
      throws Exception {
    this.retentionMillis = retentionMillis;
    this.rnd = new Random(seed);
    this.partitions = partitions;
    this.compaction = compaction;
    this.settings =
        NodeSettings.defaults()
            .withFlushInterval(Duration.ofMillis(2))
            .withTailCacheBytes(0)
            .toBuilder()
            .maintenanceInterval(Duration.ofHours(1000))
            .segmentThresholdBytes(500L)
            .segmentMaxBytes(2500L)
            .segmentEntryMaxBytes(1024)
            .gcGracePeriod(Duration.ofMinutes(1))
            .orphanMinAge(Duration.ofMinutes(20))
            .build();
    this.store =
        (ObjectStore)
            Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(),
                new Class<?>[] {ObjectStore.class},
                (p, m, args) -> {
                  try {
                    Object r = m.invoke(mem, args);
                    if (m.getName().equals("create")
                        && ((String) args[0]).endsWith(ObjectLayout.COMPACTED_SEGMENT_SUFFIX)
                        && crashAfterCompactedPut.getAndSet(false)) {
                      crashesInjected++;
                      return ((CompletableFuture<?>) r)
                          .thenApply(
                              v -> {
                                throw new IllegalStateException(
                                    "injected crash after the compacted segment PUT " + args[0]);
                              });
                    }
                    return r;
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    Path dir = Files.createTempDirectory(tmp, "meta");
    this.meta =
        EmbeddedMetastore.open(
            dir, MetaSettings.defaults(), EmbeddedMetastore.Options.defaults(), clock, metaExec);
    this.node = start();
    node.log()
        .createStream(
            NS, STREAM, new StreamSpec(partitions, Durability.STANDARD, retentionMillis, -1, true))
        .get(10, TimeUnit.SECONDS);
    this.info = meta.read(r -> r.stream(NS, STREAM).orElseThrow());
    for (int p = 0; p < partitions; p++) {
      model.add(new ArrayList<>());
    }
  }

  NodeRuntime start() {
    return NodeRuntime.builder()
        .nodeId("n1")
        .settings(settings)
        .store(store)
        .meta(meta)
        .clock(clock)
        .random(new Random(rnd.nextLong()))
        .scheduler(sched)
        .startTimeout(Duration.ofSeconds(10))
        .ownershipSettings(OwnershipSettings.defaults())
        .compactionSettings(compaction)
        .start();
  }

  /** Appends {@code kvs} (key, value pairs; either may be null) to partition {@code p}. */
  AppendResult append(int p, List<byte[][]> kvs) throws Exception {
    List<AppendRecord> recs = new ArrayList<>();
    for (byte[][] kv : kvs) {
      recs.add(
          new AppendRecord(
              kv[0], kv[1], List.of(), OptionalLong.of(clock.millis()), OptionalInt.of(p)));
    }
    AppendResult res = node.log().append(NS, STREAM, recs).get(10, TimeUnit.SECONDS);
    record(p, kvs, res);
    return res;
  }

  void record(int p, List<byte[][]> kvs, AppendResult res) {
    if (res.duplicate()) {
      return;
    }
    for (int i = 0; i < kvs.size(); i++) {
      long off = res.positions().get(i).offset();
      assertThat(off).isEqualTo(model.get(p).size());
      model.get(p).add(new Rec(off, kvs.get(i)[0], kvs.get(i)[1], clock.millis()));
    }
  }

  static byte[] b(String s) {
    return s == null ? null : s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** One key/value pair as the list {@link #append} takes. */
  static List<byte[][]> one(byte[][] kv) {
    List<byte[][]> l = new ArrayList<>();
    l.add(kv);
    return l;
  }

  static byte[][] kv(String k, String v) {
    return new byte[][] {b(k), b(v)};
  }

  void maintain() throws Exception {
    node.runMaintenance().get(30, TimeUnit.SECONDS);
  }

  /** The node stops without draining and a new process starts. */
  void restart() {
    node.stop();
    node = start();
  }

  void advance(Duration d) {
    clock.now.addAndGet(d.toMillis());
  }

  List<IndexEntry> entries(int p) {
    return meta.read(r -> r.indexEntries(info.id(), p, 0, 1_000_000));
  }

  PartitionInfo bounds(int p) {
    return meta.read(r -> r.partition(info.id(), p).orElseThrow());
  }

  /** Every surviving record of {@code p}, read with small fetches from the log start. */
  List<FetchedRecord> readAll(int p) throws Exception {
    PartitionInfo b = bounds(p);
    List<FetchedRecord> out = new ArrayList<>();
    long next = b.logStartOffset();
    while (next < b.highWatermark()) {
      FetchResult f =
          node.log().fetch(NS, STREAM, p, next, 300, Duration.ZERO).get(10, TimeUnit.SECONDS);
      assertThat(f.nextOffset()).as("fetch at %d moves on", next).isGreaterThan(next);
      for (FetchedRecord r : f.records()) {
        assertThat(r.offset()).isGreaterThanOrEqualTo(next);
        assertThat(r.offset()).isLessThan(f.nextOffset());
        if (!out.isEmpty()) {
          assertThat(r.offset()).isGreaterThan(out.get(out.size() - 1).offset());
        }
        out.add(r);
      }
      next = f.nextOffset();
    }
    return out;
  }

  static ByteBuffer k(byte[] key) {
    return ByteBuffer.wrap(key);
  }

  /** The invariants after any step; {@code ctx} names the step. */
  void check(String ctx) throws Exception {
    for (String key : referencedKeys()) {
      assertThat(mem.head(key).get(10, TimeUnit.SECONDS))
          .as(ctx + " referenced " + key)
          .isPresent();
    }
    for (int p = 0; p < partitions; p++) {
      List<Rec> recs = model.get(p);
      PartitionInfo b = bounds(p);
      assertThat(b.highWatermark()).as(ctx + " high watermark").isEqualTo(recs.size());
      long logStart = b.logStartOffset();
      if (retentionMillis < 0) {
        assertThat(logStart).as(ctx + " log start").isZero();
      } else {
        assertThat(logStart)
            .as(ctx + " log start never moves back")
            .isGreaterThanOrEqualTo(lastLogStart.getOrDefault(p, 0L));
        lastLogStart.put(p, logStart);
        for (Rec r : recs.subList(0, (int) logStart)) {
          assertThat(clock.millis() - r.timestamp())
              .as(ctx + " p=" + p + " offset " + r.offset() + " trimmed inside the time retention")
              .isGreaterThanOrEqualTo(retentionMillis);
        }
        trimmedByRetention = Math.max(trimmedByRetention, (int) logStart);
      }
      List<FetchedRecord> got = readAll(p);
      Map<Long, FetchedRecord> byOffset = new HashMap<>();
      for (FetchedRecord r : got) {
        Rec m = recs.get((int) r.offset());
        assertThat(r.key()).as(ctx + " key at " + r.offset()).isEqualTo(m.key());
        assertThat(r.value()).as(ctx + " value at " + r.offset()).isEqualTo(m.value());
        assertThat(r.timestamp()).as(ctx + " timestamp at " + r.offset()).isEqualTo(m.timestamp());
        byOffset.put(r.offset(), r);
      }
      Map<ByteBuffer, Long> latest = new HashMap<>();
      for (Rec r : recs) {
        if (r.key() != null) {
          latest.put(k(r.key()), r.offset());
        }
      }
      for (Rec r : recs) {
        if (byOffset.containsKey(r.offset()) || r.offset() < logStart) {
          continue;
        }
        String what = ctx + " p=" + p + " missing offset " + r.offset();
        assertThat(r.key()).as(what + ": a keyless record").isNotNull();
        if (latest.get(k(r.key())) > r.offset()) {
          supersededGone++;
          continue;
        }
        assertThat(r.value()).as(what + ": the latest record of its key").isNull();
        assertThat(clock.millis() - r.timestamp())
            .as(what + ": a tombstone removed within its retention")
            .isGreaterThanOrEqualTo(TOMBSTONE_RETENTION.toMillis());
        tombstonesGone++;
      }
      // A fetch at any offset starts at the next surviving record.
      long[] surviving = got.stream().mapToLong(FetchedRecord::offset).toArray();
      for (long o = 0; o < logStart; o++) {
        long below = o;
        int partition = p;
        assertThatThrownBy(
                () ->
                    node.log()
                        .fetch(NS, STREAM, partition, below, 1, Duration.ZERO)
                        .get(10, TimeUnit.SECONDS))
            .as(ctx + " fetch below the log start at " + o)
            .hasCauseInstanceOf(OffsetOutOfRangeException.class);
      }
      for (long o = logStart; o < b.highWatermark(); o++) {
        int i = Arrays.binarySearch(surviving, o);
        int at = i >= 0 ? i : -i - 1;
        FetchResult f =
            node.log().fetch(NS, STREAM, p, o, 1, Duration.ZERO).get(10, TimeUnit.SECONDS);
        if (at < surviving.length) {
          assertThat(f.records()).as(ctx + " fetch at " + o).isNotEmpty();
          assertThat(f.records().get(0).offset())
              .as(ctx + " fetch at " + o)
              .isEqualTo(surviving[at]);
        } else {
          assertThat(f.records()).as(ctx + " fetch at " + o).isEmpty();
          assertThat(f.nextOffset()).as(ctx + " fetch at " + o).isEqualTo(b.highWatermark());
        }
        assertThat(f.highWatermark()).isEqualTo(b.highWatermark());
      }
      for (IndexEntry e : entries(p)) {
        if (Compactor.isCompacted(e)) {
          compactedEntriesSeen++;
        }
      }
    }
  }

  Set<String> referencedKeys() {
    Set<String> keys = new HashSet<>();
    for (int p = 0; p < partitions; p++) {
      entries(p).forEach(e -> keys.add(e.objectKey()));
    }
    return keys;
  }

  /**
   * Lets every grace period pass, runs GC, and checks the store holds exactly what is referenced.
   */
  void settleGc(String ctx) throws Exception {
    advance(Duration.ofHours(2));
    append(0, one(kv("clock", "moves")));
    maintain();
    advance(Duration.ofMinutes(5));
    maintain();
    maintain();
    Set<String> stored = new HashSet<>();
    for (String prefix : List.of("wal/", "seg/")) {
      for (ObjectInfo o : mem.list(prefix, "", 1000).get().objects()) {
        stored.add(o.key());
      }
    }
    assertThat(stored).as(ctx + " stored objects").isEqualTo(referencedKeys());
    assertThat((int) meta.read(r -> r.retiredCount())).isZero();
  }

  @Override
  public void close() throws Exception {
    node.stop();
    meta.close();
    metaExec.shutdownNow();
    sched.shutdownNow();
  }
}
