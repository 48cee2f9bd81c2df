package dev.loam.sim.runner;

import dev.loam.sim.HostWorkload;
import dev.loam.sim.Simulation;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;

/**
 * Runs a range of seeds of a simulation and reports the failing ones with what replays them: what a
 * host's test calls to run its {@link HostWorkload} over many seeds ({@link #check}), and the
 * command-line runner of the numbers in docs/design/simulation.md ({@link #main}). {@code
 * -Dloam.sim.seed=N} replays seed N alone; {@code -Dloam.sim.first=N} moves the range.
 *
 * <p>In one process, one seed after another; {@link SimRunner} spreads the harness's own workload
 * over worker processes within a time budget. Outside the simulated world like the rest of this
 * package: it reads the wall clock for its timings.
 */
public final class SimSeeds {
  /** The property naming the one seed to replay. */
  public static final String SEED_PROPERTY = "loam.sim.seed";

  /** The property naming the first seed of the range (1 when unset). */
  public static final String FIRST_PROPERTY = "loam.sim.first";

  private SimSeeds() {}

  /**
   * Runs {@code count} seeds from {@code -Dloam.sim.first} (or only {@code -Dloam.sim.seed}) of the
   * simulations {@code simulation} makes, and throws an {@link AssertionError} holding the report
   * of every failing seed (violations, fault schedule, last trace lines, the replay) if any failed.
   * A run that throws is a failing seed too. Answers the results of the seeds that ran.
   */
  public static List<Simulation.Result> check(int count, LongFunction<Simulation> simulation) {
    List<Long> seeds = new ArrayList<>();
    String one = System.getProperty(SEED_PROPERTY);
    if (one != null) {
      seeds.add(Long.parseLong(one.trim()));
    } else {
      long first = Long.parseLong(System.getProperty(FIRST_PROPERTY, "1").trim());
      for (long s = first; s < first + count; s++) {
        seeds.add(s);
      }
    }
    List<Simulation.Result> results = new ArrayList<>();
    StringBuilder failures = new StringBuilder();
    int failed = 0;
    for (long seed : seeds) {
      Simulation.Result r;
      try {
        r = simulation.apply(seed).run();
      } catch (RuntimeException | AssertionError e) {
        failed++;
        failures
            .append("\nsimulation seed=")
            .append(seed)
            .append(" threw ")
            .append(e)
            .append("\nreplay: ")
            .append(Simulation.replayCommand(seed))
            .append('\n');
        continue;
      }
      results.add(r);
      if (!r.ok()) {
        failed++;
        failures.append('\n').append(r.report()).append('\n');
      }
    }
    if (failed > 0) {
      throw new AssertionError(failed + " of " + seeds.size() + " seeds failed" + failures);
    }
    return results;
  }

  /**
   * {@code java -cp <loam-sim class path> dev.loam.sim.runner.SimSeeds FIRST COUNT}: runs the
   * harness's own workload over the seeds, prints each failing seed's report and the summed counts;
   * {@code -Dtwice} runs each seed twice and compares the traces, {@code -Dverbose} prints a line
   * per seed.
   */
  public static void main(String[] args) {
    long first = args.length > 0 ? Long.parseLong(args[0]) : 1;
    int count = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    run(first, count, Simulation::run, System.out);
  }

  /** The runner of {@link #main}, for any simulation; answers the number of failing seeds. */
  static int run(long first, int count, LongFunction<Simulation.Result> run, PrintStream out) {
    Map<String, Long> sums = new TreeMap<>();
    Map<String, Long> max = new TreeMap<>();
    int failed = 0;
    long simulatedMillis = 0;
    long start = System.nanoTime();
    for (long seed = first; seed < first + count; seed++) {
      long t0 = System.nanoTime();
      Simulation.Result r = run.apply(seed);
      if (System.getProperty("twice") != null) {
        Simulation.Result again = run.apply(seed);
        if (!again.traceHash().equals(r.traceHash()) || again.steps() != r.steps()) {
          failed++;
          out.println("NONDETERMINISTIC seed=" + seed);
        }
      }
      if (System.getProperty("verbose") != null) {
        out.printf(
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
        out.println(r.report());
      }
    }
    out.printf(
        "seeds=%d..%d failed=%d wallSeconds=%.1f simulatedSeconds=%d%n",
        first,
        first + count - 1,
        failed,
        (System.nanoTime() - start) / 1e9,
        simulatedMillis / 1000);
    out.println("sums " + sums);
    out.println("max " + max);
    return failed;
  }
}
