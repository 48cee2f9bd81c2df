package dev.loam.sim.runner;

import dev.loam.sim.Simulation;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.StringJoiner;

/**
 * One worker process of {@link SimRunner}: runs its share of the seeds one after another in this
 * JVM and prints one line per seed to standard output, which the parent aggregates. A failing
 * seed's whole report (violations, fault schedule, counts, the last trace lines, the replay
 * command) is written to {@code <failures>/seed-<n>.txt}.
 *
 * <p>The line, tab separated: {@code SEED}, the seed, {@code ok} or {@code fail}, wall
 * milliseconds, simulated milliseconds, the counts as {@code key=value} joined by commas, the first
 * violation (or empty). Counter names never hold a tab, a comma or an equals sign.
 */
final class SeedWorker {
  /** The first word of a result line. */
  static final String PREFIX = "SEED";

  private SeedWorker() {}

  /**
   * Runs seeds {@code first + offset}, {@code first + offset + stride}, ... below {@code first +
   * count}.
   */
  static void run(long first, long count, int stride, int offset, Path failures, PrintStream out)
      throws IOException {
    for (long i = offset; i < count; i += stride) {
      long seed = first + i;
      long t0 = System.nanoTime();
      Simulation.Result r;
      try {
        r = Simulation.run(seed);
      } catch (RuntimeException | AssertionError e) {
        // A run that throws is a failing seed like any other, with what is known of it.
        String report =
            "simulation seed=" + seed + " threw " + e + "\n" + SimSummary.replayCommand(seed);
        Files.createDirectories(failures);
        Files.writeString(failures.resolve("seed-" + seed + ".txt"), report);
        out.println(line(seed, false, t0, 0, Map.of(), "the run threw " + e));
        out.flush();
        continue;
      }
      if (!r.ok()) {
        Files.createDirectories(failures);
        Files.writeString(
            failures.resolve("seed-" + seed + ".txt"), r.report(), StandardCharsets.UTF_8);
      }
      out.println(
          line(
              seed,
              r.ok(),
              t0,
              r.simulatedMillis(),
              r.counts(),
              r.ok() ? "" : r.violations().get(0)));
      out.flush();
    }
  }

  private static String line(
      long seed, boolean ok, long t0, long simulatedMillis, Map<String, Long> counts, String v) {
    StringJoiner c = new StringJoiner(",");
    counts.forEach((k, n) -> c.add(k + "=" + n));
    return String.join(
        "\t",
        PREFIX,
        Long.toString(seed),
        ok ? "ok" : "fail",
        Long.toString((System.nanoTime() - t0) / 1_000_000),
        Long.toString(simulatedMillis),
        c.toString(),
        v.replace('\t', ' ').replace('\n', ' '));
  }
}
