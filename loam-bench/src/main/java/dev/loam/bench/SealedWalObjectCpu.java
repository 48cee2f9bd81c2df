package dev.loam.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import org.openjdk.jmh.infra.Blackhole;

/**
 * CPU time per record of building and opening a plain and a sealed WAL object, measured with the
 * thread's CPU clock rather than wall time, so that a loaded machine (other processes waiting for a
 * core) does not inflate it. Plain and sealed rounds alternate in one JVM. Usage: {@code java -cp
 * <loam-bench classpath> dev.loam.bench.SealedWalObjectCpu [rounds]}.
 */
public final class SealedWalObjectCpu {
  private SealedWalObjectCpu() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Blackhole bh =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");
    SealedWalObjectBench[] benches = new SealedWalObjectBench[2];
    for (int s = 0; s < 2; s++) {
      benches[s] = new SealedWalObjectBench();
      benches[s].sealed = s == 1;
      benches[s].setUp();
    }
    int opsPerRound = 200;
    long records = 1600L * opsPerRound;
    long bytes = (long) benches[0].objectSize() * opsPerRound;
    long[][] build = new long[2][rounds];
    long[][] open = new long[2][rounds];
    for (int r = -5; r < rounds; r++) { // five warm-up rounds
      for (int s = 0; s < 2; s++) {
        long t0 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < opsPerRound; i++) {
          bh.consume(benches[s].buildObject());
        }
        long t1 = mx.getCurrentThreadCpuTime();
        for (int i = 0; i < opsPerRound; i++) {
          benches[s].openChunks(bh);
        }
        long t2 = mx.getCurrentThreadCpuTime();
        if (r >= 0) {
          build[s][r] = t1 - t0;
          open[s][r] = t2 - t1;
        }
      }
    }
    System.out.println(
        "java "
            + System.getProperty("java.version")
            + ", "
            + rounds
            + " rounds of "
            + opsPerRound
            + " objects ("
            + records
            + " records, "
            + bytes / 1_000_000
            + " MB) each");
    System.out.println("path   kind    CPU ns/record (median)  MB per CPU-second");
    for (int s = 0; s < 2; s++) {
      print("build", s, median(build[s]), records, bytes);
      print("open", s, median(open[s]), records, bytes);
    }
  }

  private static void print(String path, int s, long cpuNanos, long records, long bytes) {
    System.out.printf(
        "%-6s %-7s %10.1f %18.0f%n",
        path,
        s == 1 ? "sealed" : "plain",
        cpuNanos / (double) records,
        bytes / (cpuNanos / 1e9) / 1e6);
  }

  private static long median(long[] v) {
    long[] c = v.clone();
    java.util.Arrays.sort(c);
    return c[c.length / 2];
  }
}
