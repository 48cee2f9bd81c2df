package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.NodeSettings;
import dev.loam.api.OffsetOutOfRangeException;
import dev.loam.api.StreamSpec;
import dev.loam.core.ObjectLayout;
import dev.loam.core.node.NodeRuntime;
import dev.loam.core.read.ReadPath;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.ulid.UlidGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random interleavings of append, segment, retention and GC steps, with node crashes between steps
 * (stream-engine.txt §5). After every step: every record inside retention is readable with its
 * original offset, bytes and order; nothing below the log start is returned, and everything dropped
 * was outside retention; every object the index references exists. At the end, once all grace
 * periods passed, the store holds exactly the referenced objects (orphans included: a "crash"
 * between a segment PUT and its swap is injected).
 */
class SegmentsAndGcSimTest {
  static final long START = 1_780_000_000_000L;
  static final long RETENTION_MILLIS = Duration.ofMinutes(30).toMillis();
  static final int PARTITIONS = 2;

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

  record Rec(long offset, byte[] value, long timestamp) {}

  @TempDir Path tmp;

  /** Coverage: the interleavings must actually segment, trim, delete and read segments. */
  int segmentEntriesSeen;

  int trimsSeen;

  int retiredDeletedSeen;

  /** Segment entries larger than the read block, read by blocks through the segment index. */
  int blockEntriesSeen;

  /** Fetches whose held GET found its object deleted (swap + GC) and that retried. */
  int racesGone;

  int timestampLookups;

  long readAheadHits;

  static NodeSettings settings() {
    return NodeSettings.defaults()
        .withFlushInterval(Duration.ofMillis(2))
        .withTailCacheBytes(0)
        .toBuilder()
        .maintenanceInterval(Duration.ofHours(1000))
        .segmentThresholdBytes(600L)
        .segmentMaxBytes(3000L)
        .gcGracePeriod(Duration.ofMinutes(1))
        .orphanMinAge(Duration.ofMinutes(20))
        .build();
  }

  @Test
  void randomInterleavingsKeepRetainedRecordsReadable() throws Exception {
    for (long seed = 1; seed <= 6; seed++) {
      run(seed, 45);
    }
    System.out.printf(
        "segmentEntries=%d blockEntries=%d trims=%d retired=%d racesGone=%d timestampLookups=%d"
            + " readAheadHits=%d%n",
        segmentEntriesSeen,
        blockEntriesSeen,
        trimsSeen,
        retiredDeletedSeen,
        racesGone,
        timestampLookups,
        readAheadHits);
    assertThat(segmentEntriesSeen).as("segment entries read").isPositive();
    assertThat(trimsSeen).as("partitions trimmed").isPositive();
    assertThat(retiredDeletedSeen).as("retired objects (GC deletes them by the end)").isPositive();
    assertThat(blockEntriesSeen).as("segment entries read by blocks").isPositive();
    assertThat(racesGone).as("fetches racing a swap and GC").isPositive();
    assertThat(timestampLookups).as("timestamp lookups").isPositive();
    assertThat(readAheadHits).as("WAL ranges served by read-ahead").isPositive();
  }

  /** Holds the first ranged GET after {@link #arm()} until {@link #release()}; others pass. */
  static final class HoldingStore extends ForwardingObjectStore {
    private boolean armed;
    private Runnable held;
    private String heldKey;
    private CompletableFuture<Void> holding = new CompletableFuture<>();
    volatile Throwable heldFailure;

    HoldingStore(InMemoryObjectStore d) {
      super(d);
    }

    synchronized void arm() {
      armed = true;
      held = null;
      heldKey = null;
      heldFailure = null;
      holding = new CompletableFuture<>();
    }

    /** Completes once a GET is held after the last {@link #arm()}. */
    synchronized CompletableFuture<Void> holding() {
      return holding;
    }

    synchronized String heldKey() {
      return held == null ? null : heldKey;
    }

    void release() {
      Runnable r;
      synchronized (this) {
        r = held;
        held = null;
        armed = false;
      }
      if (r != null) {
        r.run();
      }
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      CompletableFuture<byte[]> out = new CompletableFuture<>();
      Runnable go =
          () ->
              delegate
                  .get(key, offset, length)
                  .whenComplete(
                      (b, t) -> {
                        if (t != null) {
                          heldFailure = t;
                          out.completeExceptionally(t);
                        } else {
                          out.complete(b);
                        }
                      });
      synchronized (this) {
        if (armed && held == null) {
          held = go;
          heldKey = key;
          holding.complete(null);
          return out;
        }
      }
      return delegate.get(key, offset, length);
    }
  }

  void run(long seed, int steps) throws Exception {
    Random rnd = new Random(seed);
    Clock clock = new Clock();
    ExecutorService metaExec = Executors.newSingleThreadExecutor();
    ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
    InMemoryObjectStore mem = new InMemoryObjectStore(clock);
    HoldingStore store = new HoldingStore(mem);
    Path dir = Files.createTempDirectory(tmp, "meta");
    Metastore meta =
        EmbeddedMetastore.open(
            dir, MetaSettings.defaults(), EmbeddedMetastore.Options.defaults(), clock, metaExec);
    // Odd seeds keep the WAL read-ahead (the default), even ones turn it off: with it, a race's
    // fetch of a WAL entry is often served from memory and holds no GET.
    NodeSettings settings = seed % 2 == 1 ? settings() : settings().withWalReadAheadBytes(0);
    NodeRuntime node = start(settings, store, meta, clock, rnd, sched);
    try {
      node.log()
          .createStream(
              "default",
              "s",
              new StreamSpec(PARTITIONS, Durability.STANDARD, RETENTION_MILLIS, -1, false))
          .get(10, TimeUnit.SECONDS);
      StreamInfo info = meta.read(r -> r.stream("default", "s").orElseThrow());
      List<List<Rec>> model = new ArrayList<>();
      for (int p = 0; p < PARTITIONS; p++) {
        model.add(new ArrayList<>());
      }
      int orphans = 0;
      for (int step = 0; step < steps; step++) {
        int action = rnd.nextInt(11);
        String what;
        if (action < 5) {
          int p = rnd.nextInt(PARTITIONS);
          int n = 1 + rnd.nextInt(4);
          List<AppendRecord> recs = new ArrayList<>();
          List<byte[]> values = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            byte[] v = new byte[20 + rnd.nextInt(80)];
            rnd.nextBytes(v);
            values.add(v);
            recs.add(
                new AppendRecord(
                    null, v, List.of(), OptionalLong.of(clock.millis()), OptionalInt.of(p)));
          }
          var res = node.log().append("default", "s", recs).get(10, TimeUnit.SECONDS);
          for (int i = 0; i < n; i++) {
            model
                .get(p)
                .add(new Rec(res.positions().get(i).offset(), values.get(i), clock.millis()));
          }
          what = "append p=" + p + " n=" + n;
        } else if (action < 7) {
          node.runMaintenance().get(30, TimeUnit.SECONDS);
          what = "maintain";
        } else if (action < 8) {
          clock.now.addAndGet(Duration.ofMinutes(1 + rnd.nextInt(12)).toMillis());
          what = "advance";
        } else if (action < 9) {
          // A crash between steps: the node stops without draining and a new process starts.
          readAheadHits += node.readStats().walReadAheadHits();
          node.stop();
          node = start(settings, store, meta, clock, rnd, sched);
          what = "crash";
        } else if (action == 10) {
          what = race(node, meta, info, model, clock, rnd, store);
        } else {
          // A segmenter that died between its PUT and its swap: an orphan segment.
          String key =
              ObjectLayout.segmentKey(
                  node.clusterId(), info.id(), 0, 0, new UlidGenerator(rnd).next(clock.millis()));
          mem.create(key, new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS);
          orphans++;
          what = "orphan";
        }
        check(seed, step, what, node, meta, store, info, model, clock);
        for (String k : referencedKeys(meta, info)) {
          if (k.startsWith("seg/")) {
            segmentEntriesSeen++;
          }
        }
        retiredDeletedSeen += meta.read(r -> r.retiredCount());
        for (int p = 0; p < PARTITIONS; p++) {
          int pp = p;
          for (var e : meta.read(r -> r.indexEntries(info.id(), pp, 0, 100_000))) {
            if (e.objectKey().startsWith("seg/")
                && e.byteLength() > ReadPath.blockBytes(settings.segmentMaxBytes())) {
              blockEntriesSeen++;
            }
          }
        }
        for (int p = 0; p < PARTITIONS; p++) {
          int pp = p;
          if (meta.read(r -> r.partition(info.id(), pp).orElseThrow().logStartOffset()) > 0) {
            trimsSeen++;
          }
        }
      }
      // Let every grace period and orphan age pass; two passes settle GC (retire, then delete).
      clock.now.addAndGet(Duration.ofHours(2).toMillis());
      node.log()
          .append("default", "s", List.of(AppendRecord.of("k", "moves-the-meta-clock")))
          .get(10, TimeUnit.SECONDS);
      node.runMaintenance().get(30, TimeUnit.SECONDS);
      clock.now.addAndGet(Duration.ofMinutes(5).toMillis());
      node.runMaintenance().get(30, TimeUnit.SECONDS);
      node.runMaintenance().get(30, TimeUnit.SECONDS);
      Set<String> referenced = referencedKeys(meta, info);
      Set<String> stored = new HashSet<>();
      for (String prefix : List.of("wal/", "seg/")) {
        for (ObjectInfo o : mem.list(prefix, "", 1000).get().objects()) {
          stored.add(o.key());
        }
      }
      assertThat(stored).as("seed=%d orphans=%d", seed, orphans).isEqualTo(referenced);
      assertThat((int) meta.read(r -> r.retiredCount())).isZero();
      readAheadHits += node.readStats().walReadAheadHits();
    } finally {
      node.stop();
      meta.close();
      metaExec.shutdownNow();
      sched.shutdownNow();
    }
  }

  static NodeRuntime start(
      NodeSettings settings,
      HoldingStore store,
      Metastore meta,
      Clock clock,
      Random rnd,
      ScheduledExecutorService sched) {
    return NodeRuntime.builder()
        .nodeId("n1")
        .settings(settings)
        .store(store)
        .meta(meta)
        .clock(clock)
        .random(new Random(rnd.nextLong()))
        .scheduler(sched)
        .startTimeout(Duration.ofSeconds(10))
        .start();
  }

  /**
   * A fetch that read the index and then waits on its GET while the segmenter swaps the entries and
   * GC deletes the object: it must still return the right records (retrying from a fresh index), or
   * OffsetOutOfRange if retention trimmed them meanwhile.
   */
  String race(
      NodeRuntime node,
      Metastore meta,
      StreamInfo info,
      List<List<Rec>> model,
      Clock clock,
      Random rnd,
      HoldingStore store)
      throws Exception {
    int p = rnd.nextInt(PARTITIONS);
    var bounds = meta.read(r -> r.partition(info.id(), p).orElseThrow());
    if (bounds.highWatermark() == bounds.logStartOffset()) {
      return "race skipped p=" + p;
    }
    long from = bounds.logStartOffset();
    store.arm();
    var fetch = node.log().fetch("default", "s", p, from, 700, Duration.ZERO);
    try {
      CompletableFuture.anyOf(store.holding(), fetch).get(10, TimeUnit.SECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // Neither a held GET nor the fetch's end within the wait (or the fetch failed): the
      // bookkeeping below handles it.
    }
    String held = store.heldKey();
    if (held == null) {
      // The fetch ended without a GET to hold (or not within the wait): disarm, so maintenance's
      // own GETs are not the ones held.
      store.release();
    }
    node.runMaintenance().get(30, TimeUnit.SECONDS);
    clock.now.addAndGet(Duration.ofMinutes(2).toMillis());
    node.runMaintenance().get(30, TimeUnit.SECONDS);
    store.release();
    long logStart = meta.read(r -> r.partition(info.id(), p).orElseThrow().logStartOffset());
    FetchResult f;
    try {
      f = fetch.get(10, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(OffsetOutOfRangeException.class);
      assertThat(logStart).as("refused only if trimmed").isGreaterThan(from);
      return "race p=" + p + " trimmed";
    }
    if (store.heldFailure != null) {
      racesGone++;
    }
    assertThat(f.records()).isNotEmpty();
    long o = from;
    for (FetchedRecord fr : f.records()) {
      assertThat(fr.offset()).isEqualTo(o);
      assertThat(fr.value()).isEqualTo(model.get(p).get((int) o).value());
      o++;
    }
    return "race p=" + p + " held=" + held + " gone=" + (store.heldFailure != null);
  }

  static Set<String> referencedKeys(Metastore meta, StreamInfo info) {
    Set<String> keys = new HashSet<>();
    for (int p = 0; p < PARTITIONS; p++) {
      int pp = p;
      meta.read(r -> r.indexEntries(info.id(), pp, 0, 100_000))
          .forEach(e -> keys.add(e.objectKey()));
    }
    return keys;
  }

  void check(
      long seed,
      int step,
      String what,
      NodeRuntime node,
      Metastore meta,
      HoldingStore store,
      StreamInfo info,
      List<List<Rec>> model,
      Clock clock)
      throws Exception {
    String ctx = "seed=" + seed + " step=" + step + " " + what;
    for (String key : referencedKeys(meta, info)) {
      assertThat(store.head(key).get(10, TimeUnit.SECONDS))
          .as(ctx + " referenced " + key)
          .isPresent();
    }
    for (int p = 0; p < PARTITIONS; p++) {
      List<Rec> recs = model.get(p);
      int pp = p;
      var bounds = meta.read(r -> r.partition(info.id(), pp).orElseThrow());
      assertThat(bounds.highWatermark()).as(ctx).isEqualTo(recs.size());
      long horizon = clock.millis() - RETENTION_MILLIS;
      for (Rec r : recs) {
        if (r.offset() < bounds.logStartOffset()) {
          assertThat(r.timestamp())
              .as(ctx + " trimmed inside retention " + r.offset())
              .isLessThan(horizon);
        }
      }
      // Read everything from the log start, in several fetches.
      long next = bounds.logStartOffset();
      while (next < bounds.highWatermark()) {
        FetchResult f =
            node.log().fetch("default", "s", p, next, 700, Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertThat(f.records()).as(ctx).isNotEmpty();
        for (FetchedRecord fr : f.records()) {
          assertThat(fr.offset()).as(ctx).isEqualTo(next);
          Rec m = recs.get((int) fr.offset());
          assertThat(fr.value()).as(ctx + " offset " + fr.offset()).isEqualTo(m.value());
          assertThat(fr.timestamp()).isEqualTo(m.timestamp());
          next++;
        }
      }
      // Fetches starting inside entries (inside big segment entries too), with small maxBytes.
      Random r2 = new Random(seed * 31 + step * 7L + p);
      for (int k = 0; k < 3 && bounds.highWatermark() > bounds.logStartOffset(); k++) {
        long from =
            bounds.logStartOffset()
                + r2.nextInt((int) (bounds.highWatermark() - bounds.logStartOffset()));
        int maxBytes = 1 + r2.nextInt(400);
        FetchResult f =
            node.log()
                .fetch("default", "s", p, from, maxBytes, Duration.ZERO)
                .get(10, TimeUnit.SECONDS);
        assertThat(f.records()).as(ctx + " from " + from).isNotEmpty();
        long o = from;
        for (FetchedRecord fr : f.records()) {
          assertThat(fr.offset()).as(ctx).isEqualTo(o);
          assertThat(fr.value()).as(ctx + " offset " + o).isEqualTo(recs.get((int) o).value());
          o++;
        }
        assertThat(f.nextOffset()).as(ctx).isEqualTo(o);
      }
      // Fetch by timestamp: the first retained record at or after it (timestamps only grow here).
      List<Long> targets = new ArrayList<>();
      targets.add(START - 1);
      targets.add(clock.millis() + 1);
      for (int k = 0; k < 3 && !recs.isEmpty(); k++) {
        long t = recs.get(r2.nextInt(recs.size())).timestamp();
        targets.add(t);
        targets.add(t + 1);
      }
      for (long t : targets) {
        long expected = bounds.highWatermark();
        for (Rec r : recs) {
          if (r.offset() >= bounds.logStartOffset() && r.timestamp() >= t) {
            expected = r.offset();
            break;
          }
        }
        long got =
            node.log()
                .listOffset("default", "s", p, dev.loam.api.OffsetSpec.forTimestamp(t))
                .get(10, TimeUnit.SECONDS);
        assertThat(got).as(ctx + " offset for timestamp " + t).isEqualTo(expected);
        timestampLookups++;
      }
      if (bounds.logStartOffset() > 0) {
        long below = bounds.logStartOffset() - 1;
        Throwable t =
            catchThrowable(
                () -> node.log().fetch("default", "s", pp, below, 700, Duration.ZERO).get());
        assertThat(t).as(ctx).hasCauseInstanceOf(OffsetOutOfRangeException.class);
      }
    }
  }
}
