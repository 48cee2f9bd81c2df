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
    return summary(run, title, v, null, chaosStart, chaosEnd);
  }

  /**
   * The table, with the quorum stream's rows when {@code quorum} (its verdict) is not null: the
   * same counts for the stream on the journal, the kills of the journal's leader and the failover
   * time of each (from the kill to the first acknowledgement of a quorum append sent after it).
   */
  static String summary(
      ChaosRun run, String title, Verdict v, Verdict quorum, long chaosStart, long chaosEnd) {
    String gap = longestGap(run.ackTimes, chaosStart, chaosEnd);
    StringBuilder b = mainRows(run, title, v, gap);
    if (quorum != null) {
      quorumRows(b, run, run.quorum, quorum, chaosStart, chaosEnd);
    }
    List<String> violations = new ArrayList<>(v.violations());
    if (quorum != null) {
      quorum.violations().forEach(s -> violations.add("quorum stream: " + s));
    }
    if (!violations.isEmpty()) {
      b.append("\nViolations:\n");
      violations.forEach(s -> b.append("- ").append(s).append('\n'));
    }
    return b.toString();
  }

  /** The longest stretch of the chaos phase without an acknowledgement, and where it started. */
  static String longestGap(java.util.Collection<Long> ackTimes, long chaosStart, long chaosEnd) {
    List<Long> times = new ArrayList<>(ackTimes);
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
    return String.format(
        Locale.ROOT,
        "%d ms (from %.1f s into the chaos)",
        TimeUnit.NANOSECONDS.toMillis(longestGap),
        gapAt / 1e9);
  }

  private static void quorumRows(
      StringBuilder b, ChaosRun run, ChaosStream q, Verdict v, long chaosStart, long chaosEnd) {
    String s = "quorum stream: ";
    row(
        b,
        s + "appends acknowledged (requests / records)",
        v.ackedAppends() + " / " + v.ackedRecords());
    row(b, s + "idempotent retries (attempts after the first)", q.idempotentRetries.get());
    row(b, s + "idempotent 200 answers dropped by the client", q.droppedAnswers.get());
    row(b, s + "answers marked duplicate (a retry of an appended request)", v.duplicateAnswers());
    row(
        b,
        s + "unknown-outcome appends (records present / absent)",
        v.unknownAppends()
            + " ("
            + v.unknownRecordsPresent()
            + " / "
            + v.unknownRecordsAbsent()
            + ")");
    row(
        b,
        s + "appends refused before anything was appended (must be absent)",
        v.definiteFailures());
    row(b, "**" + s + "lost acknowledged records** (must be 0)", v.lost());
    row(b, "**" + s + "duplicate records** (must be 0)", v.duplicates());
    row(b, "**" + s + "out-of-order reads** (must be 0)", v.outOfOrderReads());
    row(b, s + "violations of any kind (listed below; must be 0)", v.violations().size());
    row(
        b,
        s + "records fetched during the run / read back per node",
        v.fetchedRecords() + " / " + v.readBackRecords());
    row(
        b,
        s + "fetches refused or failed (retried) / on a replica behind the offset",
        q.failedFetches.get() + " / " + q.staleFetches.get());
    long journalKills;
    synchronized (run.kills) {
      journalKills = run.kills.stream().filter(k -> k.contains(" journal-leader")).count();
    }
    row(b, "kills of the journal leader", journalKills);
    row(
        b,
        "**failover: journal leader kill to the first acknowledged quorum append sent after it (ms;"
            + " target 1000-3000)**",
        q.failoverMillis());
    row(
        b,
        s + "longest unavailability (longest gap without a successful ack)",
        longestGap(q.ackTimes, chaosStart, chaosEnd));
  }

  private static StringBuilder mainRows(ChaosRun run, String title, Verdict v, String gap) {
    Map<String, Integer> byNode = new TreeMap<>();
    long leaderKills;
    List<Long> restarts;
    synchronized (run.kills) {
      for (String k : run.kills) {
        for (String node : k.split(" ")[0].split("\\+")) {
          byNode.merge(node, 1, Integer::sum);
        }
      }
      leaderKills = run.kills.stream().filter(k -> k.contains(" leader")).count();
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
    row(b, "longest unavailability (longest gap without a successful ack)", gap);
    return b;
  }

  static void row(StringBuilder b, String what, Object value) {
    b.append("| ").append(what).append(" | ").append(value).append(" |\n");
  }
}
