package dev.loam.bench.load;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The records of one producer thread, the same for the Loam and the Kafka side of a run: values are
 * {@code recordBytes} taken from a 1 MiB random pool at a sliding offset (so they do not compress
 * to nothing), the first 8 bytes overwritten with the send time ({@link System#nanoTime} of this
 * JVM, read back by the consumers); keys are null or drawn uniformly from {@code keys} fixed
 * strings. Seeded from the scenario seed and the producer id. Not thread-safe: one per producer
 * thread.
 */
final class RecordGenerator {
  private final SplittableRandom rnd;
  private final byte[] pool = new byte[1 << 20];
  private final byte[][] keys;
  private final int recordBytes;
  private int poolPos;

  RecordGenerator(BenchConfig c, int producerId) {
    this.rnd = new SplittableRandom(c.seed() * 31 + producerId);
    rnd.nextBytes(pool);
    this.keys = new byte[c.keys()][];
    for (int k = 0; k < keys.length; k++) {
      keys[k] = String.format("key-%08d", k).getBytes(StandardCharsets.US_ASCII);
    }
    this.recordBytes = c.recordBytes();
  }

  /** A fresh value array carrying {@code sentNanos} in its first 8 bytes. */
  byte[] value(long sentNanos) {
    byte[] v = new byte[recordBytes];
    if (poolPos + v.length > pool.length) {
      poolPos = 0;
    }
    System.arraycopy(pool, poolPos, v, 0, Math.min(v.length, pool.length));
    poolPos += 64;
    ByteBuffer.wrap(v).putLong(0, sentNanos);
    return v;
  }

  /** The next key (shared arrays, not to be modified), or null for null keys. */
  byte[] key() {
    return keys.length == 0 ? null : keys[rnd.nextInt(keys.length)];
  }

  /** The send time a value carries. */
  static long sentNanos(byte[] value) {
    return ByteBuffer.wrap(value).getLong(0);
  }
}
