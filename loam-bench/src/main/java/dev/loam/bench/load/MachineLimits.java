package dev.loam.bench.load;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The machine's limits, measured in the same run as the load (single thread each): memory copy
 * ({@code System.arraycopy} of 1 MiB, cache-hot), CRC32C of 1 MiB, and writing 8 MiB files with
 * {@code force(false)} (fdatasync) before close.
 */
public record MachineLimits(
    double memcopyGBps,
    double crc32cGBps,
    double fsyncWriteMBps,
    double fsync8MiBP50Millis,
    double fsync8MiBP99Millis,
    double fsync8MiBMaxMillis,
    int fsyncFiles) {

  private static final int MIB = 1 << 20;

  /** Measures in about 3 s plus the disk writes, in {@code dir}. */
  public static MachineLimits measure(Path dir) throws IOException {
    byte[] src = new byte[MIB];
    new SplittableRandom(1).nextBytes(src);
    byte[] dst = new byte[MIB];
    double copy = rate(() -> System.arraycopy(src, 0, dst, 0, MIB));
    CRC32C crc = new CRC32C();
    long[] sink = new long[1];
    double crcRate =
        rate(
            () -> {
              crc.reset();
              crc.update(src, 0, MIB);
              sink[0] += crc.getValue();
            });
    int files = 24;
    double[] ms = new double[files];
    ByteBuffer buf = ByteBuffer.allocateDirect(MIB);
    buf.put(src).flip();
    long totalNanos = 0;
    Files.createDirectories(dir);
    for (int i = 0; i < files + 4; i++) {
      Path f = dir.resolve("limits-" + i + ".bin");
      long t0 = System.nanoTime();
      try (FileChannel ch =
          FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        for (int k = 0; k < 8; k++) {
          buf.rewind();
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
        }
        ch.force(false);
      }
      long t = System.nanoTime() - t0;
      Files.delete(f);
      if (i >= 4) { // the first 4 are warm-up
        ms[i - 4] = t / 1e6;
        totalNanos += t;
      }
    }
    Arrays.sort(ms);
    double mbps = files * 8.0 * MIB / 1e6 / (totalNanos / 1e9);
    return new MachineLimits(
        copy,
        crcRate,
        mbps,
        ms[files / 2],
        ms[Math.min(files - 1, (int) Math.ceil(files * 0.99) - 1)],
        ms[files - 1],
        files);
  }

  /** GB/s of a 1 MiB operation run for 1 s after 0.3 s of warm-up. */
  private static double rate(Runnable op) {
    long end = System.nanoTime() + 300_000_000L;
    while (System.nanoTime() < end) {
      op.run();
    }
    long n = 0;
    long t0 = System.nanoTime();
    long stop = t0 + 1_000_000_000L;
    long now;
    do {
      for (int i = 0; i < 64; i++) {
        op.run();
      }
      n += 64;
      now = System.nanoTime();
    } while (now < stop);
    return n * (double) MIB / 1e9 / ((now - t0) / 1e9);
  }

  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("memcopy_1mib_gb_per_s", memcopyGBps);
    m.put("crc32c_1mib_gb_per_s", crc32cGBps);
    m.put("file_write_fsync_8mib_mb_per_s", fsyncWriteMBps);
    m.put("file_write_fsync_8mib_p50_ms", fsync8MiBP50Millis);
    m.put("file_write_fsync_8mib_p99_ms", fsync8MiBP99Millis);
    m.put("file_write_fsync_8mib_max_ms", fsync8MiBMaxMillis);
    m.put("file_write_fsync_files", fsyncFiles);
    return m;
  }
}
