package dev.loam.storage.s3;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A throughput measurement, not a test: sequential PUTs then GETs of 1 MiB and 8 MiB objects
 * through {@link S3ObjectStore} against S3Proxy and S3Mock started as in the tests. Prints p50/p99
 * latency and MB/s per server, size and operation. Command in docs/reference/storage-s3.md.
 *
 * <p>Arguments: {@code [iterations=50] [servers=s3proxy,s3mock]}.
 */
public final class S3Throughput {
  private S3Throughput() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    List<String> servers = Arrays.asList((args.length > 1 ? args[1] : "s3proxy,s3mock").split(","));
    ExecutorService completions = Executors.newFixedThreadPool(4);
    try {
      System.out.printf(
          Locale.ROOT,
          "%-8s %5s %4s %4s %9s %9s %9s%n",
          "server",
          "size",
          "op",
          "n",
          "p50 ms",
          "p99 ms",
          "MB/s");
      for (String name : servers) {
        Emulator server = name.equals("s3mock") ? Emulator.s3mock() : Emulator.s3proxy();
        try (S3ObjectStore store =
            new S3ObjectStore(server.settings(server.newBucket()), completions)) {
          for (int mib : new int[] {1, 8}) {
            byte[] data = new byte[mib * 1024 * 1024];
            Arrays.fill(data, (byte) 7);
            // Warm-up: connections, JIT, the server's first-request paths.
            for (int i = 0; i < 3; i++) {
              store.put("warm/" + i, data).join();
              store.get("warm/" + i).join();
            }
            long[] put = new long[n];
            long putStart = System.nanoTime();
            for (int i = 0; i < n; i++) {
              long t = System.nanoTime();
              store.put("bench/" + mib + "/" + i, data).join();
              put[i] = System.nanoTime() - t;
            }
            long putTotal = System.nanoTime() - putStart;
            long[] get = new long[n];
            long getStart = System.nanoTime();
            for (int i = 0; i < n; i++) {
              long t = System.nanoTime();
              byte[] back = store.get("bench/" + mib + "/" + i).join();
              get[i] = System.nanoTime() - t;
              if (back.length != data.length) {
                throw new AssertionError("short read " + back.length);
              }
            }
            long getTotal = System.nanoTime() - getStart;
            report(name, mib, "PUT", put, putTotal, (long) n * data.length);
            report(name, mib, "GET", get, getTotal, (long) n * data.length);
          }
        }
      }
    } finally {
      completions.shutdownNow();
    }
    System.exit(0); // run the emulators' shutdown hooks now
  }

  private static void report(
      String server, int mib, String op, long[] nanos, long total, long bytes) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    double p50 = sorted[(int) Math.floor(0.50 * (sorted.length - 1))] / 1e6;
    double p99 = sorted[(int) Math.ceil(0.99 * (sorted.length - 1))] / 1e6;
    double mbps = bytes / 1e6 / (total / 1e9);
    System.out.printf(
        Locale.ROOT,
        "%-8s %3dMiB %4s %4d %9.1f %9.1f %9.1f%n",
        server,
        mib,
        op,
        nanos.length,
        p50,
        p99,
        mbps);
  }
}
