package dev.loam.bench.scale;

import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.Origin;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What the scale benchmarks share: the commands that fill a metastore with many partitions, the
 * live-heap measurement, and the median/spread line every figure is printed as.
 */
final class ScaleFixtures {
  /** The node every command of the scale benchmarks comes from. */
  static final String NODE = "scale-node";

  /** Bytes of one batch in the WAL objects the benchmarks commit. */
  static final int BATCH_BYTES = 2_000;

  private ScaleFixtures() {}

  static Origin origin(long millis) {
    return new Origin(NODE, 1, millis);
  }

  /**
   * A WAL object that holds one 10-record batch for each of {@code count} partitions of {@code
   * streamId}, starting at partition {@code first}.
   */
  static CommitWal object(String key, long millis, long streamId, int first, int count) {
    List<ChunkCommit> chunks = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      chunks.add(
          new ChunkCommit(
              streamId,
              first + i,
              List.of(
                  new BatchCommit(
                      (long) i * BATCH_BYTES, BATCH_BYTES, 10, millis, -1, (short) -1, -1))));
    }
    return new CommitWal(origin(millis), key, millis, (long) count * BATCH_BYTES, chunks);
  }

  /**
   * The heap still in use after full collections (System.gc() under G1 is a full, compacting
   * collection): the live set, as far as the JVM can tell.
   */
  static long liveHeapBytes() {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while measuring the heap", e);
      }
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  /** "M [min..max]" of {@code values}: the median and the spread, formatted with {@code format}. */
  static String spread(double[] values, String format) {
    double[] v = values.clone();
    Arrays.sort(v);
    double median =
        v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    return String.format(
        Locale.ROOT, format + " [" + format + ".." + format + "]", median, v[0], v[v.length - 1]);
  }

  /** The p-th percentile (0..100) of {@code sortedNanos}, in milliseconds. */
  static double percentileMillis(long[] sortedNanos, double p) {
    int i = (int) Math.min(sortedNanos.length - 1, Math.floor(sortedNanos.length * p / 100.0));
    return sortedNanos[i] / 1e6;
  }
}
