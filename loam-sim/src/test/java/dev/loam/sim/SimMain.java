package dev.loam.sim;

import java.util.Map;
import java.util.TreeMap;

/**
 * Runs a range of seeds outside JUnit and prints the failures and the summed counts (the numbers of
 * docs/design/simulation.md): {@code java -cp ... dev.loam.sim.SimMain FIRST COUNT}.
 */
public final class SimMain {
  private SimMain() {}

  public static void main(String[] args) {
    long first = args.length > 0 ? Long.parseLong(args[0]) : 1;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Map<String, Long> sums = new TreeMap<>();
    Map<String, Long> max = new TreeMap<>();
    int failed = 0;
    long simulatedMillis = 0;
    long start = System.nanoTime();
    for (long seed = first; seed < first + count; seed++) {
      long t0 = System.nanoTime();
      Simulation.Result r = Simulation.run(seed);
      if (System.getProperty("twice") != null) {
        Simulation.Result again = Simulation.run(seed);
        if (!again.traceHash().equals(r.traceHash()) || again.steps() != r.steps()) {
          failed++;
          System.out.println("NONDETERMINISTIC seed=" + seed);
        }
        System.out.println("seed " + seed + " " + r.faultSchedule().get(1));
      }
      if (System.getProperty("verbose") != null) {
        System.out.printf(
            "seed %d %.2fs steps=%d lines=%d%n",
            seed, (System.nanoTime() - t0) / 1e9, r.steps(), r.traceLines());
      }
      simulatedMillis += r.simulatedMillis();
      r.counts()
          .forEach(
              (k, v) -> {
                if (k.startsWith("max")) {
                  max.merge(k, v, Math::max);
                } else {
                  sums.merge(k, v, Long::sum);
                }
              });
      if (!r.ok()) {
        failed++;
        System.out.println(r.report());
      }
    }
    System.out.printf(
        "seeds=%d..%d failed=%d wallSeconds=%.1f simulatedSeconds=%d%n",
        first,
        first + count - 1,
        failed,
        (System.nanoTime() - start) / 1e9,
        simulatedMillis / 1000);
    System.out.println("sums " + sums);
    System.out.println("max " + max);
  }
}
