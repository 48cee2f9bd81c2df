package dev.loam.sim.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a {@link SimRunner} run found, summed over its seeds: seeds run and failed, the faults
 * injected by kind, appends acknowledged, acknowledged records lost, duplicates, every other count
 * summed (the {@code max*} ones as a maximum), and each failing seed with its first violation and
 * the commands that replay it. Written as text and as JSON.
 */
final class SimSummary {
  /** The counters that count injected faults, each with what it counts. */
  static final Map<String, String> FAULT_KINDS = faultKinds();

  /** A seed that failed. */
  record Failure(long seed, String firstViolation, String reportFile) {}

  private final long first;
  private final long requested;
  private final int workers;
  private final String budget;
  private final Map<String, Long> sums = new TreeMap<>();
  private final Map<String, Long> max = new TreeMap<>();
  private final List<Failure> failures = new ArrayList<>();
  private long seedsRun;
  private long simulatedMillis;
  private long seedWallMillis;
  private long wallMillis;
  private boolean budgetExhausted;
  private final List<String> workerErrors = new ArrayList<>();

  SimSummary(long first, long requested, int workers, String budget) {
    this.first = first;
    this.requested = requested;
    this.workers = workers;
    this.budget = budget;
  }

  private static Map<String, String> faultKinds() {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("crashes", "node crashes (restart with a new epoch)");
    m.put("pauses", "process pauses");
    m.put("leaves", "graceful leaves");
    m.put("clockSteps", "clock steps of 90 s on one node");
    m.put("slotChanges", "slot changes");
    m.put("transfers", "stream transfers");
    m.put("zoneOutages", "express zone outages");
    m.put("meta.leaderChanges", "metastore leader changes");
    m.put("meta.refused", "metastore proposals refused");
    m.put("meta.lostBeforeLog", "metastore proposals lost before the log");
    m.put("meta.answerLost", "metastore answers lost");
    m.put("meta.delayed", "metastore proposals delayed");
    m.put("meta.futureStamp", "future-stamped commands refused");
    m.put("store.unavailable", "store 503s");
    m.put("store.outcomeUnknown", "store writes of unknown outcome");
    m.put("store.missingRead", "store reads of a missing object");
    m.put("store.slow", "slow store calls");
    m.put("zones.unavailable", "zonal store 503s (outages included)");
    m.put("zones.outcomeUnknown", "zonal store writes of unknown outcome");
    m.put("zones.missingRead", "zonal store reads of a missing object");
    m.put("zones.slow", "slow zonal store calls");
    m.put("journal.fault.leaderCrash", "quorum journal leader crashes");
    m.put("journal.fault.leaderPause", "quorum journal leader pauses");
    m.put("journal.fault.isolate", "quorum replicas cut off the journal network");
    m.put("journal.fault.slow", "quorum replicas on a slow journal link");
    m.put("journal.msgLost", "journal messages lost");
    m.put("journal.msgDelayed", "journal messages held back");
    m.put("journal.elections", "journal elections won");
    m.put("quorum.acked", "quorum appends acknowledged");
    return java.util.Collections.unmodifiableMap(m);
  }

  /** The command that replays one seed under Maven, and the one that reruns it here. */
  static String replayCommand(long seed) {
    return "mvn -B -pl loam-sim -am test -Dtest=ClusterSimTest#replay"
        + " -Dsurefire.failIfNoSpecifiedTests=false -Dloam.sim.seed="
        + seed;
  }

  /** Takes one worker result line ({@link SeedWorker}); false if it is not one. */
  synchronized boolean add(String line) {
    String[] f = line.split("\t", -1);
    if (f.length != 7 || !f[0].equals(SeedWorker.PREFIX)) {
      return false;
    }
    long seed = Long.parseLong(f[1]);
    seedsRun++;
    seedWallMillis += Long.parseLong(f[3]);
    simulatedMillis += Long.parseLong(f[4]);
    if (!f[5].isEmpty()) {
      for (String kv : f[5].split(",")) {
        int eq = kv.lastIndexOf('=');
        String k = kv.substring(0, eq);
        long v = Long.parseLong(kv.substring(eq + 1));
        if (k.startsWith("max")) {
          max.merge(k, v, Math::max);
        } else {
          sums.merge(k, v, Long::sum);
        }
      }
    }
    if (f[2].equals("fail")) {
      failures.add(new Failure(seed, f[6], "sim-failures/seed-" + seed + ".txt"));
    }
    return true;
  }

  /** Every 500 seeds, a progress line: seeds run, failed, acknowledged records lost so far. */
  synchronized void progress(java.io.PrintStream out) {
    if (seedsRun % 500 == 0) {
      out.printf(
          Locale.ROOT,
          "sim: %d of %d seeds run, %d failed, %d acknowledged records lost%n",
          seedsRun,
          requested,
          failures.size(),
          sum("ackedLost"));
    }
  }

  synchronized void workerError(String e) {
    workerErrors.add(e);
  }

  synchronized void finish(long wallMillis, boolean budgetExhausted) {
    this.wallMillis = wallMillis;
    this.budgetExhausted = budgetExhausted;
    failures.sort(java.util.Comparator.comparingLong(Failure::seed));
  }

  synchronized long seedsRun() {
    return seedsRun;
  }

  synchronized List<Failure> failures() {
    return List.copyOf(failures);
  }

  synchronized List<String> workerErrors() {
    return List.copyOf(workerErrors);
  }

  private long sum(String k) {
    return sums.getOrDefault(k, 0L);
  }

  /** The summary as a reader wants it. */
  synchronized String text() {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "simulation seeds %d..%d: %d of %d run by %d workers in %.1f s wall (budget %s%s),"
                + " %d failed%n",
            first,
            first + requested - 1,
            seedsRun,
            requested,
            workers,
            wallMillis / 1e3,
            budget,
            budgetExhausted ? ", exhausted" : "",
            failures.size()));
    b.append(
        String.format(
            Locale.ROOT,
            "simulated %d s; appends %d, acknowledged %d (%d records); acknowledged records lost %d;"
                + " duplicates %d; definite failures present %d%n",
            simulatedMillis / 1000,
            sum("appends"),
            sum("acked"),
            sum("ackedRecords"),
            sum("ackedLost"),
            sum("duplicates"),
            sum("definiteFailuresPresent")));
    b.append(
        String.format(
            Locale.ROOT,
            "retention: %d trims judged (%d time, %d size), %d acknowledged records removed within"
                + " the rules%n",
            sum("trimsJudged"),
            sum("trims.TIME"),
            sum("trims.SIZE"),
            sum("ackedTrimmedByRetention")));
    b.append("faults injected:\n");
    FAULT_KINDS.forEach(
        (k, what) -> b.append(String.format(Locale.ROOT, "  %-22s %10d  %s%n", k, sum(k), what)));
    b.append("max: ").append(max).append('\n');
    for (Failure f : failures) {
      b.append("FAILED seed ").append(f.seed()).append(": ").append(f.firstViolation());
      b.append("\n  report: ").append(f.reportFile());
      b.append("\n  replay: ").append(replayCommand(f.seed()));
      b.append("\n  rerun:  ./loam sim --first ").append(f.seed()).append(" --seeds 1\n");
    }
    workerErrors.forEach(e -> b.append("worker error: ").append(e).append('\n'));
    return b.toString();
  }

  /** The summary as JSON. */
  synchronized String json() {
    StringBuilder b = new StringBuilder("{\n");
    field(b, "firstSeed", first);
    field(b, "seedsRequested", requested);
    field(b, "seedsRun", seedsRun);
    field(b, "seedsFailed", failures.size());
    field(b, "workers", workers);
    b.append("  \"budget\": ").append(quote(budget)).append(",\n");
    b.append("  \"budgetExhausted\": ").append(budgetExhausted).append(",\n");
    field(b, "wallMillis", wallMillis);
    field(b, "seedWallMillis", seedWallMillis);
    field(b, "simulatedMillis", simulatedMillis);
    field(b, "appends", sum("appends"));
    field(b, "acknowledged", sum("acked"));
    field(b, "acknowledgedRecords", sum("ackedRecords"));
    field(b, "lost", sum("ackedLost"));
    field(b, "duplicates", sum("duplicates"));
    field(b, "definiteFailuresPresent", sum("definiteFailuresPresent"));
    field(b, "trimsJudged", sum("trimsJudged"));
    b.append("  \"faults\": {");
    String sep = "\n";
    for (String k : FAULT_KINDS.keySet()) {
      b.append(sep).append("    ").append(quote(k)).append(": ").append(sum(k));
      sep = ",\n";
    }
    b.append("\n  },\n  \"failures\": [");
    sep = "\n";
    for (Failure f : failures) {
      b.append(sep)
          .append("    {\"seed\": ")
          .append(f.seed())
          .append(", \"firstViolation\": ")
          .append(quote(f.firstViolation()))
          .append(", \"report\": ")
          .append(quote(f.reportFile()))
          .append(", \"replay\": ")
          .append(quote(replayCommand(f.seed())))
          .append("}");
      sep = ",\n";
    }
    b.append(failures.isEmpty() ? "],\n" : "\n  ],\n");
    b.append("  \"workerErrors\": [");
    sep = "";
    for (String e : workerErrors) {
      b.append(sep).append(quote(e));
      sep = ", ";
    }
    b.append("],\n");
    map(b, "max", max);
    b.append(",\n");
    map(b, "counts", sums);
    b.append("\n}\n");
    return b.toString();
  }

  private static void field(StringBuilder b, String k, long v) {
    b.append("  ").append(quote(k)).append(": ").append(v).append(",\n");
  }

  private static void map(StringBuilder b, String name, Map<String, Long> m) {
    b.append("  ").append(quote(name)).append(": {");
    String sep = "\n";
    for (Map.Entry<String, Long> e : m.entrySet()) {
      b.append(sep).append("    ").append(quote(e.getKey())).append(": ").append(e.getValue());
      sep = ",\n";
    }
    b.append(m.isEmpty() ? "}" : "\n  }");
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
