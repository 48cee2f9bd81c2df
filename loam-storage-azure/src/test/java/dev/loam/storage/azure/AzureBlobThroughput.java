package dev.loam.storage.azure;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Not a test: sequential PUT then GET of 1 MiB and 8 MiB objects against Azurite, printing p50/p99
 * latency and MB/s per case. Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl loam-storage-azure test-compile dependency:build-classpath \
 *     -Dmdep.outputFile=target/cp.txt -Dmdep.includeScope=test
 * java -cp loam-storage-azure/target/test-classes:loam-storage-azure/target/classes:$(cat \
 *     loam-storage-azure/target/cp.txt) -Dbasedir=loam-storage-azure \
 *     dev.loam.storage.azure.AzureBlobThroughput 40 12
 * </pre>
 *
 * Arguments: rounds of 1 MiB, rounds of 8 MiB. The 8 MiB case runs twice: one Put Blob, and as
 * staged 2 MiB blocks (threshold lowered to 4 MiB) to show the block path's cost.
 */
public final class AzureBlobThroughput {
  private AzureBlobThroughput() {}

  public static void main(String[] args) throws Exception {
    int smallRounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
    int bigRounds = args.length > 1 ? Integer.parseInt(args[1]) : 12;
    ExecutorService callbacks = Executors.newFixedThreadPool(2);
    try (Azurite azurite = Azurite.start()) {
      AzureBlobStoreSettings base = azurite.settings("bench");
      run(base, "warm-up-1MiB", 1 << 20, 10);
      run(base, "1MiB", 1 << 20, smallRounds);
      run(base, "8MiB", 8 << 20, bigRounds);
      run(base.withBlockUpload(4 << 20, 2 << 20, 4), "8MiB-blocks", 8 << 20, bigRounds);
    } finally {
      callbacks.shutdownNow();
    }
  }

  private static void run(AzureBlobStoreSettings settings, String name, int size, int rounds)
      throws Exception {
    ExecutorService callbacks = Executors.newFixedThreadPool(2);
    try (AzureBlobObjectStore store =
        AzureBlobObjectStore.open(
            settings.withEndpoint(settings.endpoint()).withCreateContainer(true), callbacks)) {
      byte[] data = new byte[size];
      for (int i = 0; i < size; i++) {
        data[i] = (byte) (i * 31);
      }
      long[] put = new long[rounds];
      long[] get = new long[rounds];
      for (int r = 0; r < rounds; r++) {
        long t0 = System.nanoTime();
        store.put("bench/" + name + "/" + r, data).get(120, TimeUnit.SECONDS);
        put[r] = System.nanoTime() - t0;
      }
      for (int r = 0; r < rounds; r++) {
        long t0 = System.nanoTime();
        byte[] back = store.get("bench/" + name + "/" + r).get(120, TimeUnit.SECONDS);
        get[r] = System.nanoTime() - t0;
        if (back.length != size) {
          throw new AssertionError("short read " + back.length);
        }
      }
      if (!name.startsWith("warm-up")) {
        print(name, "PUT", size, put);
        print(name, "GET", size, get);
      }
    } finally {
      callbacks.shutdownNow();
    }
  }

  private static void print(String name, String op, int size, long[] nanos) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    double p50 = sorted[sorted.length / 2] / 1e6;
    double p99 =
        sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6;
    double total = Arrays.stream(nanos).sum() / 1e9;
    double mbps = (double) size * nanos.length / (1024 * 1024) / total;
    System.out.printf(
        Locale.ROOT,
        "%-12s %s n=%d p50=%.1f ms p99=%.1f ms %.1f MiB/s%n",
        name,
        op,
        nanos.length,
        p50,
        p99,
        mbps);
  }
}
