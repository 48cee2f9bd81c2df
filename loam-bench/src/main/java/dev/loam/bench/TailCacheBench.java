package dev.loam.bench;

import dev.loam.core.read.TailCache;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The tail cache, the first tier of the read path: {@code put} of one batch as the writer does when
 * a WAL object's PUT completes (the ring reuses its oldest chunk when full), and {@code getHit} of
 * one resident batch as a tailing fetch does. The cache is the node default (64 MiB in 4 MiB
 * chunks), filled before measuring. Lives in the cache's package because {@link TailCache} is
 * internal to loam-core.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TailCacheBench {
  /** One batch: 1 record of 1 KiB, or 100 such records (a 100-record append). */
  @Param({"1024", "102400"})
  public int batchBytes;

  private static final long CAPACITY = 64L << 20;

  private TailCache cache;
  private byte[] batch;
  private String[] objectKeys;
  private int resident;
  private long next;
  private final SplittableRandom random = new SplittableRandom(42);

  @Setup
  public void setUp() {
    cache = new TailCache(CAPACITY);
    batch = new byte[batchBytes];
    random.nextBytes(batch);
    // Keys as the writer makes them: one WAL object per ~1 MiB, batches at their byte offsets.
    int perObject = Math.max(1, (1 << 20) / batchBytes);
    resident = (int) (CAPACITY / batchBytes) / 2; // well inside the cache, never evicted by gets
    objectKeys = new String[resident / perObject + 1];
    for (int i = 0; i < objectKeys.length; i++) {
      objectKeys[i] = "wal/standard/bench-node/01JBENCH" + String.format("%018d", i) + ".wal";
    }
    for (int i = 0; i < resident; i++) {
      cache.put(keyOf(i), offsetOf(i), batch);
    }
    next = resident;
    for (int i : new int[] {0, resident / 2, resident - 1}) {
      if (cache.get(keyOf(i), offsetOf(i), batchBytes) == null) {
        throw new IllegalStateException("resident batch " + i + " is not in the cache");
      }
    }
  }

  private String keyOf(long i) {
    int perObject = Math.max(1, (1 << 20) / batchBytes);
    return objectKeys[(int) ((i / perObject) % objectKeys.length)];
  }

  private long offsetOf(long i) {
    int perObject = Math.max(1, (1 << 20) / batchBytes);
    // Past every resident batch's offset once the object names wrap, so puts stay new keys.
    return (i % perObject) * (long) batchBytes
        + (i / ((long) perObject * objectKeys.length)) * (1L << 30);
  }

  @Benchmark
  public void put() {
    long i = next++;
    cache.put(keyOf(i), offsetOf(i), batch);
  }

  @Benchmark
  public byte[] getHit() {
    int i = random.nextInt(resident);
    return cache.get(keyOf(i), offsetOf(i), batchBytes);
  }
}
