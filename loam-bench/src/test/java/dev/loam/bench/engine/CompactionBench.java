package dev.loam.bench.engine;

import dev.loam.api.AppendRecord;
import dev.loam.api.CompactionSettings;
import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.api.StreamSpec;
import dev.loam.api.StreamUpdate;
import dev.loam.core.maintain.Compactor;
import dev.loam.core.maintain.Segmenter;
import dev.loam.core.node.NodeRuntime;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.embedded.EmbeddedMetastore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Compaction throughput and effect (compacted streams): one partition of {@code records} keyed
 * records over {@code keys} keys is appended and segmented as a plain stream, then switched to
 * compact, and one maintenance pass (dominated by the compactor) is timed. Not a test: run by hand,
 * see docs/operations/performance.md "Compaction and segmenting". Arguments: records keys
 * valueBytes.
 */
public final class CompactionBench {
  private CompactionBench() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 500_000;
    int keys = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    int valueBytes = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    Clock clock = Clock.systemUTC();
    ExecutorService metaExec = Executors.newSingleThreadExecutor();
    ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor();
    Path dir = Files.createTempDirectory("loam-compaction-bench");
    Metastore meta =
        EmbeddedMetastore.open(
            dir, MetaSettings.defaults(), EmbeddedMetastore.Options.defaults(), clock, metaExec);
    InMemoryObjectStore store = new InMemoryObjectStore(clock);
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)).toBuilder()
            .maintenanceInterval(Duration.ofHours(1000))
            .segmentThresholdBytes(8L << 20)
            .segmentMaxBytes(64L << 20)
            .build();
    NodeRuntime node =
        NodeRuntime.builder()
            .nodeId("n1")
            .settings(settings)
            .store(store)
            .meta(meta)
            .clock(clock)
            .random(new Random(1))
            .scheduler(sched)
            .startTimeout(Duration.ofSeconds(10))
            .ownershipSettings(OwnershipSettings.defaults())
            .compactionSettings(CompactionSettings.defaults())
            .start();
    try {
      node.log().createStream("default", "b", StreamSpec.standard(1)).get(10, TimeUnit.SECONDS);
      StreamInfo info = meta.read(r -> r.stream("default", "b").orElseThrow());
      Random rnd = new Random(7);
      byte[] value = new byte[valueBytes];
      int perAppend = 500;
      for (int i = 0; i < records; i += perAppend) {
        List<AppendRecord> batch = new ArrayList<>(perAppend);
        for (int j = i; j < Math.min(records, i + perAppend); j++) {
          rnd.nextBytes(value);
          byte[] key = ("key-" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
          batch.add(AppendRecord.of(key, value.clone()).toPartition(0));
        }
        node.log().append("default", "b", batch).get(30, TimeUnit.SECONDS);
      }
      for (int i = 0; i < 20 && walBytes(meta, info) >= (8L << 20); i++) {
        node.runMaintenance().get(5, TimeUnit.MINUTES);
      }
      long[] before = stats(meta, info);
      node.log()
          .updateStream("default", "b", new StreamUpdate(null, null, true))
          .get(10, TimeUnit.SECONDS);
      var os =
          (com.sun.management.OperatingSystemMXBean)
              java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long t0 = System.nanoTime();
      node.runMaintenance().get(10, TimeUnit.MINUTES);
      long nanos = System.nanoTime() - t0;
      double cpuSecs = (os.getProcessCpuTime() - cpu0) / 1e9;
      long[] after = stats(meta, info);
      long survivors = 0;
      long next = 0;
      while (true) {
        var f =
            node.log()
                .fetch("default", "b", 0, next, 8 << 20, Duration.ZERO)
                .get(1, TimeUnit.MINUTES);
        survivors += f.records().size();
        if (f.nextOffset() >= f.highWatermark()) {
          break;
        }
        next = f.nextOffset();
      }
      double secs = nanos / 1e9;
      System.out.printf(
          "records=%d keys=%d valueBytes=%d%n"
              + "before: segment bytes=%d wal bytes=%d entries=%d%n"
              + "after:  compacted bytes=%d plain segment bytes=%d wal bytes=%d entries=%d"
              + " records left=%d%n"
              + "pass: %.2f s wall, %.2f s process CPU; %.1f MB/s of segment bytes per wall second,"
              + " %.1f MB/s per CPU second; %.0f records/s (wall)%n",
          records,
          keys,
          valueBytes,
          before[1],
          before[2],
          before[3],
          after[0],
          after[1],
          after[2],
          after[3],
          survivors,
          secs,
          cpuSecs,
          before[1] / 1e6 / secs,
          before[1] / 1e6 / cpuSecs,
          records / secs);
    } finally {
      node.stop();
      meta.close();
      metaExec.shutdownNow();
      sched.shutdownNow();
    }
  }

  static long walBytes(Metastore meta, StreamInfo info) {
    return stats(meta, info)[2];
  }

  /** Bytes in compacted segments, plain segments, WAL objects; index entries. */
  static long[] stats(Metastore meta, StreamInfo info) {
    long[] s = new long[4];
    for (IndexEntry e : meta.read(r -> r.indexEntries(info.id(), 0, 0, 10_000_000))) {
      int i = Compactor.isCompacted(e) ? 0 : Segmenter.isWal(e) ? 2 : 1;
      s[i] += e.byteLength();
      s[3]++;
    }
    return s;
  }
}
