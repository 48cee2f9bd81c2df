package dev.loam.core.changelog;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.ChangelogMode;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Changelog lag and throughput on one embedded node with a file-system store (not a test: run it by
 * hand). A producer appends keyed records to a compacted stream at a fixed rate; a consumer
 * long-polls the changelog; the lag of a source record is the time from its append's
 * acknowledgement (committed) to the moment its change record is readable from the changelog
 * (committed there). Prints p50, p99, max and the change records per second.
 *
 * <pre>
 * java -cp loam-core/target/test-classes:loam-core/target/classes:$(cat cp.txt) \
 *     dev.loam.core.changelog.ChangelogLagBench [flushMillis] [records] [recordsPerSecond] [mode]
 * </pre>
 */
public final class ChangelogLagBench {
  private ChangelogLagBench() {}

  public static void main(String[] args) throws Exception {
    int flushMillis = args.length > 0 ? Integer.parseInt(args[0]) : 250;
    int records = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int rate = args.length > 2 ? Integer.parseInt(args[2]) : 2_000;
    ChangelogMode mode = args.length > 3 ? ChangelogMode.valueOf(args[3]) : ChangelogMode.FULL;
    Path dir = Files.createTempDirectory("changelog-bench");
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("bench")
            .dataDir(dir)
            .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(flushMillis)))
            .start()) {
      Log log = node.log();
      log.createNamespace("b").get();
      log.createStream("b", "s", new StreamSpec(1, Durability.STANDARD, -1, -1, true)).get();
      log.createChangelog("b", "x", "s", mode).get();
      ConcurrentHashMap<Long, Long> ackedAt = new ConcurrentHashMap<>();
      long[] lag = new long[records];
      int[] seen = {0};
      Thread consumer =
          new Thread(
              () -> {
                long next = 0;
                try {
                  while (seen[0] < records) {
                    FetchResult r =
                        log.fetch("b", "x", 0, next, 1 << 20, Duration.ofMillis(500))
                            .get(10, TimeUnit.SECONDS);
                    long now = System.nanoTime();
                    for (FetchedRecord c : r.records()) {
                      String kind = header(c, "loam.row_kind");
                      if ("-U".equals(kind)) {
                        continue; // one lag per source record: its +U
                      }
                      long src = Long.parseLong(header(c, "loam.source_offset"));
                      Long t0 = ackedAt.get(src);
                      while (t0 == null) {
                        Thread.onSpinWait(); // the ack callback runs just after the commit
                        t0 = ackedAt.get(src);
                      }
                      lag[seen[0]++] = now - t0;
                    }
                    next = r.nextOffset();
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      consumer.start();
      long start = System.nanoTime();
      int batch = Math.max(1, rate / 100); // one append every 10 ms
      List<java.util.concurrent.CompletableFuture<AppendResult>> pending = new ArrayList<>();
      for (int i = 0; i < records; i += batch) {
        long due = start + (long) i * 1_000_000_000L / rate;
        while (System.nanoTime() < due) {
          Thread.onSpinWait();
        }
        List<AppendRecord> recs = new ArrayList<>();
        for (int j = i; j < Math.min(records, i + batch); j++) {
          recs.add(AppendRecord.of("k" + (j % 1000), "value-" + j).toPartition(0));
        }
        pending.add(
            log.append("b", "s", recs)
                .whenComplete(
                    (r, e) -> {
                      long t = System.nanoTime();
                      if (r != null) {
                        r.positions().forEach(p -> ackedAt.put(p.offset(), t));
                      }
                    }));
      }
      for (var f : pending) {
        f.get(30, TimeUnit.SECONDS);
      }
      consumer.join(120_000);
      long elapsed = System.nanoTime() - start;
      long[] sorted = Arrays.copyOf(lag, seen[0]);
      Arrays.sort(sorted);
      System.out.printf(
          "mode=%s flush=%dms records=%d rate=%d/s: lag p50=%.1fms p99=%.1fms max=%.1fms;"
              + " %d source records turned into changes in %.1fs (%.0f/s)%n",
          mode,
          flushMillis,
          records,
          rate,
          sorted[sorted.length / 2] / 1e6,
          sorted[(int) (sorted.length * 0.99)] / 1e6,
          sorted[sorted.length - 1] / 1e6,
          sorted.length,
          elapsed / 1e9,
          sorted.length / (elapsed / 1e9));
    }
  }

  private static String header(FetchedRecord r, String name) {
    for (Header h : r.headers()) {
      if (h.key().equals(name)) {
        return new String(h.value(), StandardCharsets.US_ASCII);
      }
    }
    return null;
  }
}
