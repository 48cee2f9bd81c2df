package dev.loam.bench.engine;

import dev.loam.api.AppendRecord;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.NodeSettings;
import dev.loam.api.OffsetSpec;
import dev.loam.api.StreamSpec;
import dev.loam.core.maintain.Segmenter;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.fs.FileSystemObjectStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.stream.Stream;

/**
 * The metastore snapshot size before and after segmenting: writes {@code args[0]} MiB (default
 * 1024) over 100 partitions through a node on the filesystem store, then runs maintenance until
 * every partition's WAL-backed entries are segmented, and reports the index entries and the size of
 * a snapshot written by the embedded metastore at each point. Not a test: run by hand, see
 * docs/operations/performance.md "Read path".
 */
public final class SegmentSnapshotBench {
  static final int PARTITIONS = 100;
  static final int VALUE_BYTES = 16 << 10;
  static final long SNAPSHOT_EVERY = 200;

  public static void main(String[] args) throws Exception {
    long mib = args.length > 0 ? Long.parseLong(args[0]) : 1024;
    // Optional: a short stale-commit and dedupe window (seconds), so the snapshots are taken after
    // the WAL commits' dedupe records expired and show the index alone.
    long windowSecs = args.length > 1 ? Long.parseLong(args[1]) : 0;
    MetaSettings metaSettings =
        windowSecs > 0
            ? new MetaSettings(
                Duration.ofSeconds(windowSecs),
                Duration.ofSeconds(windowSecs),
                Duration.ofSeconds(60),
                5)
            : MetaSettings.defaults();
    Path tmp = Files.createTempDirectory("loam-snapbench");
    ExecutorService metaExec = Executors.newSingleThreadExecutor();
    ExecutorService io = Executors.newFixedThreadPool(4);
    ScheduledExecutorService sched = Executors.newScheduledThreadPool(2);
    InstantSource clock = InstantSource.system();
    Path metaDir = tmp.resolve("meta");
    EmbeddedMetastore meta =
        EmbeddedMetastore.open(
            metaDir,
            metaSettings,
            new EmbeddedMetastore.Options(10_000, SNAPSHOT_EVERY),
            clock,
            metaExec);
    FileSystemObjectStore store = new FileSystemObjectStore(tmp.resolve("objects"), io, clock);
    // 1 GiB over 100 partitions is ~10 MiB a partition: segments of 8..16 MiB make one each.
    NodeSettings settings =
        NodeSettings.defaults()
            .withFlushInterval(Duration.ofMillis(50))
            .withTailCacheBytes(0)
            .toBuilder()
            .maintenanceInterval(Duration.ofHours(1000))
            .segmentThresholdBytes(8L << 20)
            .segmentMaxBytes(16L << 20)
            .build();
    NodeRuntime node =
        NodeRuntime.builder()
            .nodeId("bench")
            .settings(settings)
            .store(store)
            .meta(meta)
            .clock(clock)
            .random(new Random(1))
            .scheduler(sched)
            .startTimeout(Duration.ofSeconds(30))
            .start();
    try {
      node.log().createNamespace("ns").join();
      node.log()
          .createStream("ns", "s", new StreamSpec(PARTITIONS, Durability.STANDARD, -1, -1, false))
          .join();
      StreamInfo info = meta.read(r -> r.stream("ns", "s").orElseThrow());
      long total = mib << 20;
      byte[] value = new byte[VALUE_BYTES];
      new Random(2).nextBytes(value);
      long t0 = System.nanoTime();
      long written = 0;
      long records = 0;
      List<CompletableFuture<?>> inFlight = new ArrayList<>();
      while (written < total) {
        // One append: one record per partition (1.6 MiB); 8 in flight share WAL objects.
        List<AppendRecord> recs = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
          recs.add(
              new AppendRecord(
                  null, value, List.of(), OptionalLong.of(clock.millis()), OptionalInt.of(p)));
        }
        inFlight.add(node.log().append("ns", "s", recs));
        written += (long) PARTITIONS * VALUE_BYTES;
        records += PARTITIONS;
        if (inFlight.size() >= 8) {
          inFlight.remove(0).join();
        }
      }
      inFlight.forEach(CompletableFuture::join);
      double writeSecs = (System.nanoTime() - t0) / 1e9;
      long before = entries(meta, info);
      long indexBefore = indexBytes(meta, info);
      Thread.sleep(windowSecs * 1000 + (windowSecs > 0 ? 1000 : 0));
      long snapBefore = snapshotNow(node, meta, info);
      long t1 = System.nanoTime();
      int passes = 0;
      while (walEntries(meta, info) > 0 && passes < 100) {
        node.runMaintenance().join();
        passes++;
      }
      double segSecs = (System.nanoTime() - t1) / 1e9;
      long after = entries(meta, info);
      long indexAfter = indexBytes(meta, info);
      Thread.sleep(windowSecs * 1000 + (windowSecs > 0 ? 1000 : 0));
      long snapAfter = snapshotNow(node, meta, info);
      // Sanity: the middle of a segmented partition and a timestamp inside it read back.
      long hw = meta.read(r -> r.partition(info.id(), 7).orElseThrow().highWatermark());
      FetchResult f = node.log().fetch("ns", "s", 7, hw / 2, 1, Duration.ZERO).join();
      if (f.records().isEmpty() || f.records().get(0).offset() != hw / 2) {
        throw new IllegalStateException("fetch from the middle failed " + f);
      }
      long ts = f.records().get(0).timestamp();
      long byTs = node.log().listOffset("ns", "s", 7, OffsetSpec.forTimestamp(ts)).join();
      if (byTs > hw / 2) {
        throw new IllegalStateException("offset for timestamp " + byTs + " > " + hw / 2);
      }
      System.out.printf(
          "written=%d MiB records=%d valueBytes=%d partitions=%d writeSecs=%.1f%n",
          written >> 20, records, VALUE_BYTES, PARTITIONS, writeSecs);
      System.out.printf(
          "dedupe window=%s%n", windowSecs > 0 ? windowSecs + " s" : "default (15/30 min)");
      System.out.printf(
          "| | index entries | entries per partition | index bytes in the snapshot |"
              + " snapshot bytes |%n|---|---|---|---|---|%n");
      System.out.printf(
          "| before segmenting | %d | %.1f | %d | %d |%n",
          before, (double) before / PARTITIONS, indexBefore, snapBefore);
      System.out.printf(
          "| after segmenting (%d passes, %.1f s) | %d | %.1f | %d | %d |%n",
          passes, segSecs, after, (double) after / PARTITIONS, indexAfter, snapAfter);
      System.out.println(node.readStats());
    } finally {
      node.stop();
      meta.close();
      store.close();
      metaExec.shutdownNow();
      io.shutdownNow();
      sched.shutdownNow();
      deleteTree(tmp);
    }
  }

  static long entries(EmbeddedMetastore meta, StreamInfo info) {
    long n = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      int pp = p;
      n += meta.read(r -> r.indexEntries(info.id(), pp, 0, 10_000_000)).size();
    }
    return n;
  }

  /** The entries' share of a snapshot (MetaStateMachine.snapshot: 5 fields and the key). */
  static long indexBytes(EmbeddedMetastore meta, StreamInfo info) {
    long n = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      int pp = p;
      for (IndexEntry e : meta.read(r -> r.indexEntries(info.id(), pp, 0, 10_000_000))) {
        n += 8 + 4 + 4 + e.objectKey().length() + 8 + 4 + 8;
      }
    }
    return n;
  }

  static long walEntries(EmbeddedMetastore meta, StreamInfo info) {
    long n = 0;
    for (int p = 0; p < PARTITIONS; p++) {
      int pp = p;
      for (IndexEntry e : meta.read(r -> r.indexEntries(info.id(), pp, 0, 10_000_000))) {
        if (Segmenter.isWal(e)) {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * Makes the embedded metastore write a snapshot of the current state (it takes one every {@link
   * #SNAPSHOT_EVERY} commands; no-op trims change nothing) and returns the newest snapshot's size.
   */
  static long snapshotNow(NodeRuntime node, EmbeddedMetastore meta, StreamInfo info)
      throws IOException {
    for (int i = 0; i <= SNAPSHOT_EVERY; i++) {
      meta.propose(
              new TrimPartition(
                  new Origin(node.nodeId(), node.epoch(), System.currentTimeMillis()),
                  info.id(),
                  0,
                  0,
                  TrimPartition.Reason.SIZE))
          .join();
    }
    try (Stream<Path> s = Files.list(meta.directory())) {
      Path newest =
          s.filter(p -> p.getFileName().toString().startsWith("snapshot-"))
              .filter(p -> p.getFileName().toString().endsWith(".snap"))
              .max(Comparator.comparing(p -> p.getFileName().toString()))
              .orElseThrow();
      return Files.size(newest);
    }
  }

  static void deleteTree(Path root) throws IOException {
    try (Stream<Path> s = Files.walk(root)) {
      s.sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // best effort
                }
              });
    }
  }
}
