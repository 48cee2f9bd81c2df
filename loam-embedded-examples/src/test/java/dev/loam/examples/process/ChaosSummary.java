package dev.loam.examples.process;

import dev.loam.examples.fault.FaultKind;
import dev.loam.examples.process.ChaosChecker.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The Markdown table a chaos run prints and writes: what the workload saw and what was injected.
 */
final class ChaosSummary {
  private ChaosSummary() {}

  static String summary(ChaosRun run, String title, Verdict v, long chaosStart, long chaosEnd) {
    List<Long> times = new ArrayList<>(run.ackTimes);
    times.sort(null);
    long longestGap = 0;
    long gapAt = 0;
    long prev = chaosStart;
    for (long t : times) {
      if (t < chaosStart) {
        continue;
      }
      long at = Math.min(t, chaosEnd);
      if (at - prev > longestGap) {
        longestGap = at - prev;
        gapAt = prev - chaosStart;
      }
      prev = at;
      if (t >= chaosEnd) {
        break;
      }
    }
    if (chaosEnd - prev > longestGap) {
      longestGap = chaosEnd - prev;
      gapAt = prev - chaosStart;
    }
    Map<String, Integer> byNode = new TreeMap<>();
    long leaderKills;
    List<Long> restarts;
    synchronized (run.kills) {
      for (String k : run.kills) {
        for (String node : k.split(" ")[0].split("\\+")) {
          byNode.merge(node, 1, Integer::sum);
        }
      }
      leaderKills = run.kills.stream().filter(k -> k.contains("leader")).count();
      restarts = List.copyOf(run.restartMillis);
    }
    StringBuilder faultText = new StringBuilder();
    for (FaultKind k : FaultKind.values()) {
      AtomicLong c = run.faults.get(k.key());
      faultText
          .append(faultText.length() == 0 ? "" : ", ")
          .append(k.key())
          .append(' ')
          .append(c == null ? 0 : c.get());
    }
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%n## %s (seed %d, %d s of chaos, %d loam node processes)%n%n",
            title,
            run.seed,
            run.durationSeconds,
            run.cluster.size()));
    b.append("| measure | value |\n| --- | --- |\n");
    row(
        b,
        "appends acknowledged (requests / records)",
        v.ackedAppends() + " / " + v.ackedRecords());
    row(b, "idempotent retries (attempts after the first)", run.idempotentRetries.get());
    row(
        b,
        "idempotent 200 answers dropped by the client (then retried elsewhere)",
        run.droppedAnswers.get());
    row(
        b,
        "idempotent appends acknowledged after an unknown-outcome attempt",
        run.ackedAfterUnknownAttempt.get());
    row(b, "answers marked duplicate (a retry of an appended request)", v.duplicateAnswers());
    row(b, "409 answers to idempotent produce", run.conflictAnswers.get());
    row(
        b,
        "409 fenced answers to plain produce (node declared dead meanwhile; must be absent)",
        run.fencedAnswers.get());
    row(
        b,
        "unknown-outcome appends (records present / absent)",
        v.unknownAppends()
            + " ("
            + v.unknownRecordsPresent()
            + " / "
            + v.unknownRecordsAbsent()
            + ")");
    row(b, "appends refused before anything was appended (must be absent)", v.definiteFailures());
    row(b, "**lost acknowledged records** (must be 0)", v.lost());
    row(b, "**duplicate records** (must be 0)", v.duplicates());
    row(b, "**out-of-order reads** (must be 0)", v.outOfOrderReads());
    row(b, "violations of any kind (listed below; must be 0)", v.violations().size());
    row(
        b,
        "records fetched during the run / read back per node",
        v.fetchedRecords() + " / " + v.readBackRecords());
    row(
        b,
        "fetches refused or failed (retried) / on a replica behind the offset",
        run.failedFetches.get() + " / " + run.staleFetches.get());
    row(
        b,
        "fetches judged for read-your-writes (asked below what their min_token acknowledged)",
        run.checker.readYourWritesJudged());
    row(
        b,
        "consumer resumes from the committed offset / commits / fenced commits",
        run.consumerResumes.get()
            + " / "
            + run.consumerCommits.get()
            + " / "
            + run.consumerFenced.get());
    row(b, "kills (kill -9) by node", run.kills.size() + " " + byNode);
    row(b, "kills of the metastore leader", leaderKills);
    row(b, "restart to ready (ms)", restarts);
    row(b, "fault injector switched on", run.faultToggles.get() + " times");
    row(b, "store faults injected by kind", faultText);
    Map<String, Integer> processFaults;
    synchronized (run.processFaults) {
      processFaults = new TreeMap<>(run.processFaults);
    }
    row(b, "other process faults by kind", processFaults);
    row(
        b,
        "longest unavailability (longest gap without a successful ack)",
        String.format(
            Locale.ROOT,
            "%d ms (from %.1f s into the chaos)",
            TimeUnit.NANOSECONDS.toMillis(longestGap),
            gapAt / 1e9));
    if (!v.violations().isEmpty()) {
      b.append("\nViolations:\n");
      v.violations().forEach(s -> b.append("- ").append(s).append('\n'));
    }
    return b.toString();
  }

  static void row(StringBuilder b, String what, Object value) {
    b.append("| ").append(what).append(" | ").append(value).append(" |\n");
  }
}
