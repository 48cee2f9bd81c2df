package dev.loam.bench.load;

import com.sun.management.OperatingSystemMXBean;
import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * CPU time of the bench JVM split by who spent it, so that a run can state the node's own CPU per
 * record apart from the load generator's and the JVM's: Java threads are grouped by name into
 * {@code node} (everything of the node: its scheduler, metastore, Ratis, gRPC, the HTTP server and
 * the Kafka gateway), {@code store} (the filesystem store's I/O pool and the latency injector's
 * timer: the emulated object store, whose kernel write and fsync time is the machine's, not
 * Loam's), and {@code bench} (producers, consumers, HTTP and Kafka clients, the main thread);
 * {@code jvm} is the rest of the process (GC, JIT compilers, VM threads, and threads that exited
 * inside the window).
 */
final class ThreadCpu {
  /** The groups, in report order. */
  static final String[] GROUPS = {"node", "store", "bench", "jvm"};

  /**
   * CPU nanoseconds (total and user) per Java thread id, plus the process total, at one instant.
   */
  record Sample(long processNanos, Map<Long, long[]> threads, Map<Long, String> names) {}

  private ThreadCpu() {}

  static Sample sample() {
    ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long[] ids = mx.getAllThreadIds();
    long[] cpu = mx.getThreadCpuTime(ids);
    long[] user = mx.getThreadUserTime(ids);
    Map<Long, long[]> threads = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    for (var info : mx.getThreadInfo(ids)) {
      if (info != null) {
        names.put(info.getThreadId(), info.getThreadName());
      }
    }
    for (int i = 0; i < ids.length; i++) {
      if (cpu[i] >= 0 && user[i] >= 0) {
        threads.put(ids[i], new long[] {cpu[i], user[i]});
      }
    }
    return new Sample(os.getProcessCpuTime(), threads, names);
  }

  /** The group of a Java thread, by its name. */
  static String group(String name) {
    if (name == null) {
      return "node";
    }
    if (name.equals("main")
        || name.startsWith("loam-bench-producer")
        || name.startsWith("loam-bench-consumer")
        || name.startsWith("loam-bench-http-client")
        || name.startsWith("HttpClient-")
        || name.startsWith("loam-bench-kafka-")
        || name.startsWith("kafka-producer-network-thread")
        || name.startsWith("kafka-admin-client-thread")) {
      return "bench";
    }
    if (name.startsWith("loam-bench-store-io") || name.startsWith("delay")) {
      return "store";
    }
    return "node";
  }

  /**
   * Seconds of CPU per group between two samples: {@code <group>} (total) and {@code <group>_user};
   * the {@code jvm} group has no user split (the JVM reports only the process total).
   */
  static Map<String, Double> between(Sample a, Sample b) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String g : GROUPS) {
      out.put(g, 0.0);
      if (!g.equals("jvm")) {
        out.put(g + "_user", 0.0);
      }
    }
    double javaThreads = 0;
    for (Map.Entry<Long, long[]> e : b.threads().entrySet()) {
      long[] before = a.threads().getOrDefault(e.getKey(), new long[] {0, 0});
      double total = (e.getValue()[0] - before[0]) / 1e9;
      double user = (e.getValue()[1] - before[1]) / 1e9;
      String g = group(b.names().get(e.getKey()));
      out.merge(g, total, Double::sum);
      out.merge(g + "_user", user, Double::sum);
      javaThreads += total;
    }
    out.put("jvm", Math.max(0, (b.processNanos() - a.processNanos()) / 1e9 - javaThreads));
    return out;
  }
}
