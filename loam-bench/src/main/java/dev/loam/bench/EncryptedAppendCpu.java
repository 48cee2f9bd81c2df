package dev.loam.bench;

import com.sun.management.OperatingSystemMXBean;
import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import dev.loam.kms.Pkcs12KeyManagementService;
import dev.loam.store.memory.InMemoryObjectStore;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Append throughput and process CPU per record of one node, for a plain and an encrypted namespace
 * in the same JVM and the same run (docs/operations/performance.md, "Envelope encryption"): rounds
 * alternate between the two namespaces, each appending {@code records} records of {@code
 * valueBytes} random bytes in appends of 100 records, 64 appends in flight, to a 4-partition stream
 * on an in-memory store (so the store costs no I/O and the difference is the node's own work:
 * sealing every chunk with AES-256-GCM, wrapping its data key). CPU is the whole process's, so it
 * includes the node's threads and the embedded metastore. Usage: {@code java -cp <loam-bench
 * classpath> dev.loam.bench.EncryptedAppendCpu [records (200000)] [valueBytes (200)] [rounds (5)]}.
 */
public final class EncryptedAppendCpu {
  private EncryptedAppendCpu() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    int valueBytes = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    int warmups = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    Path dir = Files.createTempDirectory("loam-enc-bench");
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (Pkcs12KeyManagementService kms =
            new Pkcs12KeyManagementService(dir.resolve("kms.p12"), "bench".toCharArray());
        InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.system());
        LoamNode node =
            LoamNode.builder()
                .nodeId("bench")
                .dataDir(dir.resolve("node"))
                .objectStore(store)
                .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
                .keyManagement(kms)
                .start()) {
      node.log().createNamespace("plain").join();
      node.log().createEncryptedNamespace("sealed").join();
      for (String ns : List.of("plain", "sealed")) {
        node.log().createStream(ns, "s", StreamSpec.standard(4)).join();
      }
      byte[] value = new byte[valueBytes];
      new java.util.Random(42).nextBytes(value);
      List<AppendRecord> batch = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        batch.add(AppendRecord.of(null, value));
      }
      String[] names = {"plain", "sealed"};
      double[][] rate = new double[2][rounds];
      double[][] cpu = new double[2][rounds];
      for (int r = -warmups; r < rounds; r++) { // warm-up rounds first (r < 0)
        for (int s = 0; s < 2; s++) {
          long c0 = os.getProcessCpuTime();
          long t0 = System.nanoTime();
          run(node, names[s], batch, records / 100);
          long wall = System.nanoTime() - t0;
          long c = os.getProcessCpuTime() - c0;
          if (r >= 0) {
            rate[s][r] = records / (wall / 1e9);
            cpu[s][r] = c / 1e3 / records;
          }
        }
      }
      System.out.printf(
          "java=%s records/round=%d valueBytes=%d rounds=%d warmups=%d (medians)%n",
          System.getProperty("java.version"), records, valueBytes, rounds, warmups);
      for (int s = 0; s < 2; s++) {
        System.out.printf(
            "%-6s %,10.0f records/s  %6.1f MB/s  %6.2f CPU µs/record  rounds: %s%n",
            names[s],
            median(rate[s]),
            median(rate[s]) * valueBytes / 1e6,
            median(cpu[s]),
            Arrays.toString(Arrays.stream(cpu[s]).map(x -> Math.round(x * 100) / 100.0).toArray()));
      }
      System.out.printf(
          "sealed/plain: throughput %.2f, CPU per record %.2f%n",
          median(rate[1]) / median(rate[0]), median(cpu[1]) / median(cpu[0]));
    }
  }

  private static void run(LoamNode node, String ns, List<AppendRecord> batch, int appends)
      throws InterruptedException {
    Semaphore window = new Semaphore(64);
    List<CompletableFuture<?>> all = new ArrayList<>(appends);
    for (int i = 0; i < appends; i++) {
      window.acquire();
      all.add(node.log().append(ns, "s", batch).whenComplete((v, t) -> window.release()));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
  }

  private static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }
}
