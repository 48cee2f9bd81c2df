package dev.loam.bench.engine;

import dev.loam.api.AppendRecord;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import dev.loam.core.maintain.Segmenter;
import dev.loam.core.read.DiskCache;
import dev.loam.core.read.ReadCounters;
import dev.loam.core.read.ReadPath;
import dev.loam.core.read.TailCache;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.fs.FileSystemObjectStore;
import dev.loam.testing.FaultyObjectStore;
import dev.loam.testing.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Read throughput per tier and GETs per WAL object with 10 concurrent consumers. Not a test: run it
 * by hand, see docs/operations/performance.md "Read path".
 *
 * <p>Tiers are measured through {@link ReadPath#load} (bytes delivered, not decoded): tail cache
 * (memory), disk cache (files in a temp dir, likely in the OS page cache), WAL object ranges (64
 * KiB ranges of 8 MiB objects, one per partition of a 128-partition flush) and segment ranges (1
 * MiB ranges of 64 MiB objects) on the filesystem store.
 */
public final class ReadTierBench {
  /** Delays every ranged GET, as a remote object store would. */
  static final class SlowStore extends ForwardingObjectStore {
    private final ScheduledExecutorService delay;
    private final int ms;

    SlowStore(ObjectStore d, ScheduledExecutorService delay, int ms) {
      super(d);
      this.delay = delay;
      this.ms = ms;
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      CompletableFuture<byte[]> out = new CompletableFuture<>();
      delay.schedule(
          () ->
              delegate
                  .get(key, offset, length)
                  .whenComplete(
                      (b, t) -> {
                        if (t != null) {
                          out.completeExceptionally(t);
                        } else {
                          out.complete(b);
                        }
                      }),
          ms,
          TimeUnit.MILLISECONDS);
      return out;
    }
  }

  static final long TOTAL = 512L << 20; // bytes read per tier per round

  public static void main(String[] args) throws Exception {
    Path tmp = Files.createTempDirectory("loam-readbench");
    ExecutorService io = Executors.newFixedThreadPool(4);
    try {
      if (args.length == 0 || !args[0].equals("consumers")) { // "consumers": only the GET counts
        System.out.printf("| tier | range | MB/s (best of 3) |%n|---|---|---|%n");
        tail(tmp, io);
        disk(tmp, io);
        store(tmp, io, "WAL object (fs store)", 8 << 20, 64 << 10, "wal");
        store(tmp, io, "segment object (fs store)", 64 << 20, 1 << 20, "seg");
        segmentBlocks(tmp, io);
      }
      System.out.printf(
          "%n| consumers read | store | disk cache | read-ahead | WAL objects | index entries |"
              + " GETs | GETs per WAL object | merged GETs | read-ahead hits | coalesced waits |"
              + " s |%n"
              + "|---|---|---|---|---|---|---|---|---|---|---|---|%n");
      for (boolean readAhead : new boolean[] {true, false}) {
        String r = readAhead ? "-ra" : "";
        consumers(tmp.resolve("n-a" + r), 0, false, true, readAhead);
        consumers(tmp.resolve("n-b" + r), 20, false, true, readAhead);
        consumers(tmp.resolve("n-c" + r), 20, true, true, readAhead);
        consumers(tmp.resolve("n-d" + r), 0, false, false, readAhead);
        consumers(tmp.resolve("n-e" + r), 20, false, false, readAhead);
      }
    } finally {
      io.shutdownNow();
    }
  }

  static List<IndexEntry> entries(String prefix, int objects, int objectBytes, int range) {
    List<IndexEntry> out = new ArrayList<>();
    for (int o = 0; o < objects; o++) {
      for (long off = 0; off + range <= objectBytes; off += range) {
        out.add(new IndexEntry(0, 1, prefix + "/" + o, off, range, 0));
      }
    }
    return out;
  }

  static double measure(ReadPath rp, List<IndexEntry> es) {
    double best = 0;
    for (int round = 0; round < 3; round++) {
      long bytes = 0;
      long t0 = System.nanoTime();
      int i = 0;
      while (bytes < TOTAL) {
        bytes += rp.load(es.get(i++ % es.size())).join().length;
      }
      double mbs = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
      best = Math.max(best, mbs);
    }
    return best;
  }

  static void row(String tier, int range, double mbs) {
    System.out.printf("| %s | %d KiB | %.0f |%n", tier, range >> 10, mbs);
  }

  static void tail(Path tmp, ExecutorService io) {
    int range = 1 << 20;
    TailCache tc = new TailCache(256L << 20);
    List<IndexEntry> es = entries("tail", 1, 128 << 20, range);
    byte[] b = new byte[range];
    new Random(1).nextBytes(b);
    for (IndexEntry e : es) {
      tc.put(e.objectKey(), e.byteOffset(), b);
    }
    row("tail cache (memory)", range, measure(new ReadPath(null, tc), es));
  }

  static void disk(Path tmp, ExecutorService io) {
    int range = 1 << 20;
    ReadCounters st = new ReadCounters();
    DiskCache dc = new DiskCache(tmp.resolve("cache"), 1L << 30, 100_000, io, st);
    dc.start().join();
    List<IndexEntry> es = entries("disk", 1, 256 << 20, range);
    byte[] b = new byte[range];
    new Random(2).nextBytes(b);
    for (IndexEntry e : es) {
      dc.put(e.objectKey(), e.byteOffset(), b).join();
    }
    ReadPath rp = new ReadPath(null, new TailCache(0), dc, st);
    row("disk cache", range, measure(rp, es));
    if (st.objectGets() != 0) {
      throw new IllegalStateException("disk tier missed: " + st);
    }
  }

  static void store(
      Path tmp, ExecutorService io, String tier, int objectBytes, int range, String prefix) {
    ObjectStore fs = new FileSystemObjectStore(tmp.resolve(prefix), io, InstantSource.system());
    int objects = (int) ((256L << 20) / objectBytes);
    Random r = new Random(3);
    for (int o = 0; o < objects; o++) {
      byte[] b = new byte[objectBytes];
      r.nextBytes(b);
      fs.put(prefix + "/" + o, b).join();
    }
    ReadPath rp = new ReadPath(fs, new TailCache(0));
    row(tier, range, measure(rp, entries(prefix, objects, objectBytes, range)));
  }

  /**
   * One-entry-per-segment reads: 4 segments of 64 MiB (16 KiB batches), each one index entry, read
   * front to back with {@link ReadPath#read} at 1 MiB a fetch (block reads through the batch index,
   * the index loaded once per segment).
   */
  static void segmentBlocks(Path tmp, ExecutorService io) {
    ObjectStore fs = new FileSystemObjectStore(tmp.resolve("segb"), io, InstantSource.system());
    List<IndexEntry> es = new ArrayList<>();
    Random r = new Random(4);
    byte[] v = new byte[16 << 10];
    r.nextBytes(v);
    byte[] batch =
        dev.loam.wal.batch.RecordBatchEncoder.encode(
            dev.loam.wal.batch.BatchSettings.plain(dev.loam.wal.batch.Compression.NONE),
            List.of(dev.loam.wal.batch.RecordData.of(1, null, v)));
    for (int s = 0; s < 4; s++) {
      dev.loam.wal.segment.SegmentBuilder b = new dev.loam.wal.segment.SegmentBuilder(1, s, 0);
      for (int i = 0; b.dataBytes() < (64 << 20); i++) {
        b.addEntry(i, batch);
      }
      dev.loam.wal.segment.Segment seg = b.build();
      String key = "seg/1/" + s + "/0-x.seg";
      fs.put(key, seg.bytes()).join();
      var e = Segmenter.group(seg.batches(), Integer.MAX_VALUE).get(0);
      es.add(new IndexEntry(0, e.recordCount(), key, e.byteOffset(), e.byteLength(), 1));
    }
    ReadCounters st = new ReadCounters();
    ReadPath rp = new ReadPath(fs, new TailCache(0), null, st);
    double best = 0;
    for (int round = 0; round < 3; round++) {
      long bytes = 0;
      long t0 = System.nanoTime();
      for (IndexEntry e : es) {
        long next = e.baseOffset();
        while (next < e.endOffset()) {
          ReadPath.Slice sl = rp.read(e, next, 1 << 20).join();
          bytes += sl.bytes().length;
          next = sl.endOffset();
        }
      }
      best = Math.max(best, bytes / 1e6 / ((System.nanoTime() - t0) / 1e9));
    }
    row("segment, one entry per segment, block reads (fs store)", 1 << 20, best);
    System.out.println("  (" + st + ")");
  }

  /**
   * 10 consumers read a 10-partition stream from the start at once, tail cache off; the store adds
   * {@code latencyMs} to every ranged GET (an object store's first-byte latency). With {@code
   * ownPartition} consumer c reads partition c (consumers of many partitions catching up), else
   * every consumer reads every partition in turn. {@code readAhead} keeps the node's default WAL
   * read-ahead, else turns it off. Every consumer must read every record it asked for, at its
   * offset, with its exact bytes.
   */
  static void consumers(
      Path dir, int latencyMs, boolean diskCache, boolean ownPartition, boolean readAhead)
      throws Exception {
    int partitions = 10;
    int consumers = 10;
    ExecutorService fsIo = Executors.newFixedThreadPool(4);
    try (TestCluster cluster = new TestCluster(dir.resolve("meta"))) {
      ScheduledExecutorService delay = Executors.newScheduledThreadPool(2);
      ObjectStore fs =
          new FileSystemObjectStore(dir.resolve("objects"), fsIo, InstantSource.system());
      FaultyObjectStore store =
          new FaultyObjectStore(latencyMs == 0 ? fs : new SlowStore(fs, delay, latencyMs));
      var settings =
          TestCluster.FAST.withFlushInterval(Duration.ofMillis(50)).withTailCacheBytes(0);
      if (diskCache) {
        settings = settings.withDiskCache(dir.resolve("cache"), 1L << 30);
      }
      if (!readAhead) {
        settings = settings.withWalReadAheadBytes(0);
      }
      LoamNode node = cluster.start("n1", settings, store, cluster.embeddedMeta);
      Log log = node.log();
      log.createNamespace("ns").join();
      log.createStream("ns", "s", StreamSpec.standard(partitions)).join();
      byte[] v = new byte[1000];
      new Random(5).nextBytes(v);
      // Each round is one append over many keys, so one WAL object holds entries of most
      // partitions.
      int rounds = 50;
      for (int round = 0; round < rounds; round++) {
        List<AppendRecord> recs = new ArrayList<>();
        for (int i = 0; i < 20 * partitions; i++) {
          recs.add(
              new AppendRecord(
                  null,
                  v,
                  List.of(),
                  java.util.OptionalLong.empty(),
                  java.util.OptionalInt.of(i % partitions)));
        }
        log.append("ns", "s", recs).join();
      }
      // WAL objects in the store (the writer's flush count can differ by a retried or empty flush).
      long walObjects = fs.list("wal/", "", 1000).join().objects().size();
      long flushes = node.writerStats().flushes();
      if (walObjects != flushes) {
        System.out.printf("(WAL objects %d, writer flushes %d)%n", walObjects, flushes);
      }
      int getsBefore = store.gets();
      long waitsBefore = node.readStats().coalescedWaits();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> ts = new ArrayList<>();
      long[] records = new long[consumers];
      boolean[] wrong = new boolean[consumers];
      for (int c = 0; c < consumers; c++) {
        int cc = c;
        Thread t =
            new Thread(
                () -> {
                  try {
                    start.await();
                  } catch (InterruptedException e) {
                    return;
                  }
                  for (int p = ownPartition ? cc : 0;
                      p < (ownPartition ? cc + 1 : partitions);
                      p++) {
                    long off = 0;
                    while (true) {
                      FetchResult r = log.fetch("ns", "s", p, off, 64 << 10, Duration.ZERO).join();
                      if (r.records().isEmpty()) {
                        break;
                      }
                      for (var rec : r.records()) {
                        if (rec.offset() != off++ || !java.util.Arrays.equals(rec.value(), v)) {
                          wrong[cc] = true;
                        }
                      }
                      records[cc] += r.records().size();
                      off = r.nextOffset();
                    }
                  }
                });
        t.start();
        ts.add(t);
      }
      long t0 = System.nanoTime();
      start.countDown();
      for (Thread t : ts) {
        t.join();
      }
      double secs = (System.nanoTime() - t0) / 1e9;
      int gets = store.gets() - getsBefore;
      long waits = node.readStats().coalescedWaits() - waitsBefore;
      long entries = 0;
      for (int p = 0; p < partitions; p++) {
        int pp = p;
        long id = cluster.embeddedMeta.read(r -> r.stream("ns", "s").orElseThrow()).id();
        entries +=
            cluster.embeddedMeta.read(r -> r.indexEntries(id, pp, 0, 1_000_000)).stream().count();
      }
      long expected = 20L * rounds * (ownPartition ? 1 : partitions);
      for (int c = 0; c < consumers; c++) {
        if (records[c] != expected || wrong[c]) {
          throw new IllegalStateException(
              "consumer " + c + " read " + records[c] + " records, wrong bytes: " + wrong[c]);
        }
      }
      System.out.printf(
          "| %s | fs%s | %s | %s | %d | %d | %d | %.1f | %d | %d | %d | %.2f |%n",
          ownPartition ? "one partition each" : "all partitions each",
          latencyMs == 0 ? "" : " + " + latencyMs + " ms per GET",
          diskCache ? "on" : "off",
          readAhead ? "on" : "off",
          walObjects,
          entries,
          gets,
          (double) gets / walObjects,
          node.readStats().walMergedGets(),
          node.readStats().walReadAheadHits(),
          waits,
          secs);
      delay.shutdownNow();
    } finally {
      fsIo.shutdownNow();
    }
  }
}
