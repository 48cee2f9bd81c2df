package dev.loam.bench.scale;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Many concurrent long-polls on one node: {@code polls} fetches parked at the tail of a stream of
 * {@code partitions} partitions (spread evenly), then one append with a record for every partition.
 * Prints the live heap the parked fetches hold (per fetch), the JVM's thread count with and without
 * them (a long-poll parks no thread), and the wake latency of every fetch: from the append's
 * acknowledgement, and from the append call. One node with the embedded metastore and the
 * filesystem store in a temp directory, default settings. A main(), not a test:
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp "loam-bench/target/classes:loam-bench/target/lib/*" \
 *     dev.loam.bench.scale.LongPollScaleBench [polls=10000] [partitions=1000] [rounds=5]
 * </pre>
 */
public final class LongPollScaleBench {
  private LongPollScaleBench() {}

  public static void main(String[] args) throws Exception {
    Args a = Args.parse(args);
    int polls = a.integer("polls", 10_000);
    int partitions = a.integer("partitions", 1_000);
    int rounds = a.integer("rounds", 5);
    a.done();
    Path dir = Files.createTempDirectory("loam-longpoll-scale");
    try (LoamNode node = LoamNode.builder().nodeId("poll-node").dataDir(dir).start()) {
      Log log = node.log();
      log.createNamespace("scale").get(30, TimeUnit.SECONDS);
      log.createStream("scale", "polls", StreamSpec.standard(partitions)).get(30, TimeUnit.SECONDS);
      long offset = 0;
      double[] heapPerPoll = new double[rounds];
      double[] ackP50 = new double[rounds];
      double[] ackP99 = new double[rounds];
      double[] ackMax = new double[rounds];
      double[] sendP50 = new double[rounds];
      double[] sendMax = new double[rounds];
      int threadsIdle = 0;
      int threadsParked = 0;
      for (int r = -1; r < rounds; r++) { // round -1 warms up
        long heap0 = ScaleFixtures.liveHeapBytes();
        threadsIdle = ManagementFactory.getThreadMXBean().getThreadCount();
        long[] woken = new long[polls];
        List<CompletableFuture<FetchResult>> parked = new ArrayList<>(polls);
        for (int i = 0; i < polls; i++) {
          int slot = i;
          parked.add(
              log.fetch("scale", "polls", i % partitions, offset, 1 << 16, Duration.ofSeconds(60))
                  .whenComplete((f, e) -> woken[slot] = System.nanoTime()));
        }
        Thread.sleep(500); // every fetch has found the tail and parked
        for (CompletableFuture<FetchResult> f : parked) {
          if (f.isDone()) {
            throw new IllegalStateException("a fetch at the tail completed before any append");
          }
        }
        long heap1 = ScaleFixtures.liveHeapBytes();
        threadsParked = ManagementFactory.getThreadMXBean().getThreadCount();
        List<AppendRecord> records = new ArrayList<>(partitions);
        for (int p = 0; p < partitions; p++) {
          records.add(AppendRecord.of(null, new byte[100]).toPartition(p));
        }
        long sent = System.nanoTime();
        AppendResult ack = log.append("scale", "polls", records).get(30, TimeUnit.SECONDS);
        long acked = System.nanoTime();
        CompletableFuture.allOf(parked.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        for (CompletableFuture<FetchResult> f : parked) {
          if (f.join().records().size() != 1) {
            throw new IllegalStateException("a woken fetch did not return the one new record");
          }
        }
        if (ack.positions().size() != partitions) {
          throw new IllegalStateException("the append was not acknowledged for every partition");
        }
        offset++;
        if (r < 0) {
          continue;
        }
        long[] afterAck = new long[polls];
        long[] afterSend = new long[polls];
        for (int i = 0; i < polls; i++) {
          afterAck[i] = woken[i] - acked;
          afterSend[i] = woken[i] - sent;
        }
        Arrays.sort(afterAck);
        Arrays.sort(afterSend);
        heapPerPoll[r] = (heap1 - heap0) / (double) polls;
        ackP50[r] = ScaleFixtures.percentileMillis(afterAck, 50);
        ackP99[r] = ScaleFixtures.percentileMillis(afterAck, 99);
        ackMax[r] = afterAck[polls - 1] / 1e6;
        sendP50[r] = ScaleFixtures.percentileMillis(afterSend, 50);
        sendMax[r] = afterSend[polls - 1] / 1e6;
      }
      System.out.printf(
          Locale.ROOT,
          "%d long-polls parked over %d partitions, median [min..max] of %d rounds: live heap %s"
              + " bytes per parked fetch;"
              + " JVM threads %d idle, %d with them parked%n",
          polls,
          partitions,
          rounds,
          ScaleFixtures.spread(heapPerPoll, "%.0f"),
          threadsIdle,
          threadsParked);
      System.out.printf(
          Locale.ROOT,
          "wake after the append's ack (negative: woken before the ack): p50 %s ms, p99 %s ms,"
              + " last %s ms%n",
          ScaleFixtures.spread(ackP50, "%.2f"),
          ScaleFixtures.spread(ackP99, "%.2f"),
          ScaleFixtures.spread(ackMax, "%.2f"));
      System.out.printf(
          Locale.ROOT,
          "wake after the append call (flush wait, PUT, commit included): p50 %s ms, last %s ms%n",
          ScaleFixtures.spread(sendP50, "%.2f"),
          ScaleFixtures.spread(sendMax, "%.2f"));
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
