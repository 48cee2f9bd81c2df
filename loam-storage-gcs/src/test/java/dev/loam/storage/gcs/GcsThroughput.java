package dev.loam.storage.gcs;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreContext;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: PUTs (create) and GETs 1 MiB and 8 MiB objects N times, one at a time, through the
 * store and the real client against the in-process {@link GcsTestServer}, and prints p50/p99 and
 * MB/s. Relative figures only (a fake on the same 2 cores). Usage: {@code GcsThroughput [N] [host]}
 * (docs/reference/storage-gcs.md has the command); with a host, the bucket {@code loam-bench} there
 * must exist.
 */
public final class GcsThroughput {
  private GcsThroughput() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    GcsTestServer server = null;
    String host;
    if (args.length > 1) {
      host = args[1];
    } else {
      server = GcsTestServer.start();
      server.createBucket("loam-bench");
      host = server.endpoint();
    }
    ExecutorService io = Executors.newFixedThreadPool(4);
    GcsStoreSettings settings =
        GcsStoreSettings.defaults("loam-bench", "bench/")
            .withHost(host)
            .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(30), 3, Duration.ofSeconds(60));
    try (ObjectStore store =
        GcsObjectStore.open(settings, new StoreContext(InstantSource.system(), io, Map.of()))) {
      for (int size : new int[] {1 << 20, 8 << 20}) {
        byte[] data = new byte[size];
        Arrays.fill(data, (byte) 42);
        for (int i = 0; i < 3; i++) { // warm-up
          store.put("warm/" + i, data).get(60, TimeUnit.SECONDS);
          store.get("warm/" + i).get(60, TimeUnit.SECONDS);
        }
        long[] put = new long[n];
        long[] get = new long[n];
        for (int i = 0; i < n; i++) {
          String key = "o/" + size + "/" + i;
          long t0 = System.nanoTime();
          store.create(key, data).get(60, TimeUnit.SECONDS);
          long t1 = System.nanoTime();
          byte[] back = store.get(key).get(60, TimeUnit.SECONDS);
          long t2 = System.nanoTime();
          if (back.length != size) {
            throw new AssertionError("short read");
          }
          put[i] = t1 - t0;
          get[i] = t2 - t1;
        }
        report("PUT", size, put);
        report("GET", size, get);
      }
    } finally {
      io.shutdownNow();
      if (server != null) {
        server.close();
      }
    }
  }

  private static void report(String op, int size, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    long total = Arrays.stream(s).sum();
    double mbps = (double) size * s.length / (1024 * 1024) / (total / 1e9);
    System.out.printf(
        "%s %d MiB x %d: p50 %.1f ms, p99 %.1f ms, %.0f MB/s%n",
        op,
        size >> 20,
        s.length,
        s[s.length / 2] / 1e6,
        s[Math.min(s.length - 1, (int) Math.ceil(s.length * 0.99) - 1)] / 1e6,
        mbps);
  }
}
