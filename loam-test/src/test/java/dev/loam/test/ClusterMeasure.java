package dev.loam.test;

import dev.loam.api.AppendRecord;
import dev.loam.api.StreamSpec;
import dev.loam.test.LoamTestCluster.Mode;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * The measurements of docs/reference/testing.md "Measured": starts and closes clusters of the given
 * sizes one after the other in this JVM and prints start and close time, threads while running,
 * threads left after close, and (with {@code idle}) the process CPU of the idle cluster over 10 s.
 * It marks the start's end and the close's beginning on System.err, the log's stream. Not a test:
 * run it with the test class path, {@code ClusterMeasure 3,3,10 [idle] [shared] [liveness2]}.
 */
final class ClusterMeasure {
  private ClusterMeasure() {}

  public static void main(String[] args) {
    String flags = args.length > 1 ? String.join(" ", List.of(args).subList(1, args.length)) : "";
    for (String size : args[0].split(",")) {
      int n = Integer.parseInt(size);
      Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
      long t0 = System.nanoTime();
      LoamTestCluster c =
          LoamTestCluster.builder()
              .nodes(n)
              .mode(flags.contains("shared") ? Mode.SHARED_METASTORE : Mode.RATIS)
              .livenessTimeout(java.time.Duration.ofSeconds(flags.contains("liveness2") ? 2 : 10))
              .start();
      double start = (System.nanoTime() - t0) / 1e9;
      // On the log's stream, so that the lines of the start can be told from the rest.
      System.err.println("ClusterMeasure: started nodes=" + n);
      int running = Thread.getAllStackTraces().size() - before.size();
      c.log(0).createNamespace("ns").join();
      c.log(0).createStream("ns", "s", StreamSpec.standard(3)).join();
      c.awaitVisible("ns", "s");
      for (int i = 0; i < n; i++) {
        c.log(i).append("ns", "s", List.of(AppendRecord.of("k", "v"))).join();
      }
      String idle = "";
      if (flags.contains("idle")) {
        com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        LockSupport.parkNanos(2_000_000_000L); // let the start's work settle
        java.util.Map<Long, Long> before0 = new java.util.HashMap<>();
        for (long id : threads.getAllThreadIds()) {
          before0.put(id, threads.getThreadCpuTime(id));
        }
        long cpu0 = os.getProcessCpuTime();
        long w0 = System.nanoTime();
        LockSupport.parkNanos(10_000_000_000L);
        double share = (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - w0);
        // Per kind of thread (digits folded), the CPU of the 10 s: where an idle cluster spends it.
        java.util.Map<String, Long> byKind = new java.util.TreeMap<>();
        for (java.lang.management.ThreadInfo ti :
            threads.getThreadInfo(threads.getAllThreadIds())) {
          if (ti != null) {
            long d =
                threads.getThreadCpuTime(ti.getThreadId())
                    - before0.getOrDefault(ti.getThreadId(), 0L);
            byKind.merge(ti.getThreadName().replaceAll("[0-9A-F]{12}|[0-9]+", "#"), d, Long::sum);
          }
        }
        StringBuilder top = new StringBuilder();
        byKind.entrySet().stream()
            .sorted((x, y) -> Long.compare(y.getValue(), x.getValue()))
            .limit(8)
            .forEach(
                e -> top.append(String.format(" %s=%dms", e.getKey(), e.getValue() / 1_000_000)));
        idle = String.format(" idle-cpu=%.1f%%-of-one-core top:%s", share * 100, top);
      }
      System.err.println("ClusterMeasure: closing nodes=" + n);
      t0 = System.nanoTime();
      c.close();
      double close = (System.nanoTime() - t0) / 1e9;
      List<String> left = new ArrayList<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (!before.contains(t)) {
          left.add(t.getName());
        }
      }
      System.out.printf(
          "nodes=%d mode=%s start=%.2fs close=%.2fs threads=%d (%.1f per node)%s left=%s%n",
          n, c.mode(), start, close, running, running / (double) n, idle, left);
    }
  }
}
