package dev.loam.examples.process;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The verdicts of the process-level chaos test (docs/design/simulation.md, "Process-level chaos
 * test"), from what clients were told and what is read back at the end. Every record value the
 * workload sends is unique, so a value identifies one record. Thread-safe: the workload threads
 * report to it concurrently.
 *
 * <ul>
 *   <li>every acknowledged record is read back at exactly its acknowledged partition and offset
 *       ({@code lost} counts those that are not);
 *   <li>per partition, offsets read back are dense from 0 and no offset holds two values, in any
 *       fetch or acknowledgement ({@code reused offsets}, {@code gaps});
 *   <li>no value is read back twice ({@code duplicates}): an idempotent retry never appends again,
 *       and an append with unknown outcome appears at most once;
 *   <li>every fetch answers consecutive offsets from the one asked for ({@code out-of-order
 *       reads});
 *   <li>an append that definitely failed (refused before anything was appended) is absent, and
 *       nothing is read back that was never sent: what is read back is exactly the acknowledged
 *       records plus some of those whose outcome was unknown (for a quorum stream, what a journal
 *       leader that died and came back as a follower had logged but not committed must not appear).
 * </ul>
 */
final class ChaosChecker {
  /** One record: where it is and its value. */
  record Rec(int partition, long offset, String value) {}

  /** The counts the summary table shows, and every violation found. */
  record Verdict(
      long ackedAppends,
      long ackedRecords,
      long duplicateAnswers,
      long unknownAppends,
      long unknownRecordsPresent,
      long unknownRecordsAbsent,
      long definiteFailures,
      long lost,
      long duplicates,
      long outOfOrderReads,
      long fetchedRecords,
      long readBackRecords,
      List<String> violations) {
    boolean ok() {
      return violations.isEmpty();
    }
  }

  private static final int MAX_DETAILS = 20;

  private final Set<String> sent = new HashSet<>();
  private final Map<String, Rec> acked = new HashMap<>();
  private final Map<Integer, Map<Long, String>> ackedAt = new HashMap<>();
  private final Set<String> unknown = new HashSet<>();
  private final Set<String> definitelyFailed = new HashSet<>();
  private final Map<Integer, Map<Long, String>> seen = new HashMap<>();
  private final List<String> violations = new ArrayList<>();
  private long ackedAppends;
  private long duplicateAnswers;
  private long unknownAppends;
  private long definiteFailures;
  private long outOfOrderReads;
  private long fetchedRecords;

  /** Values about to be sent (before the first attempt). */
  synchronized void sent(List<String> values) {
    for (String v : values) {
      if (!sent.add(v)) {
        violation("the workload sent value " + v + " twice (test bug)");
      }
    }
  }

  /**
   * Per partition: consistency token of an acknowledgement → the end (last offset + 1) of the
   * acknowledged records, for the read-your-writes judgement.
   */
  private final Map<Integer, java.util.TreeMap<Long, Long>> ackedEndByToken = new HashMap<>();

  private long readYourWritesJudged;

  /** A 200 answer to a produce: record {@code i} of {@code values} is at {@code offsets[i]}. */
  synchronized void acked(
      int partition, List<Long> offsets, List<String> values, boolean duplicateAnswer) {
    acked(partition, offsets, values, duplicateAnswer, -1);
  }

  /**
   * As {@link #acked(int, List, List, boolean)}, with the answer's consistency token: from then on
   * a fetch of the partition with {@code min_token} at least {@code token} must see the records.
   */
  synchronized void acked(
      int partition, List<Long> offsets, List<String> values, boolean duplicateAnswer, long token) {
    if (token >= 0 && !offsets.isEmpty()) {
      long end = offsets.stream().mapToLong(Long::longValue).max().getAsLong() + 1;
      ackedEndByToken
          .computeIfAbsent(partition, k -> new java.util.TreeMap<>())
          .merge(token, end, Math::max);
    }
    ackedAppends++;
    if (duplicateAnswer) {
      duplicateAnswers++;
    }
    if (offsets.size() != values.size()) {
      violation("ack of " + values.size() + " records answered " + offsets.size() + " offsets");
      return;
    }
    for (int i = 0; i < values.size(); i++) {
      String v = values.get(i);
      Rec r = new Rec(partition, offsets.get(i), v);
      Rec before = acked.putIfAbsent(v, r);
      if (before != null && !before.equals(r)) {
        violation("value " + v + " acknowledged at " + before + " and again at " + r);
      }
      String other =
          ackedAt.computeIfAbsent(partition, p -> new HashMap<>()).putIfAbsent(r.offset(), v);
      if (other != null && !other.equals(v)) {
        violation(
            "offset reused: partition "
                + partition
                + " offset "
                + r.offset()
                + " acknowledged for "
                + other
                + " and for "
                + v);
      }
    }
  }

  /** An append whose outcome the client never learned (it may or may not be there). */
  synchronized void unknownOutcome(List<String> values) {
    unknownAppends++;
    unknown.addAll(values);
  }

  /** An append refused with an answer that says nothing was appended. */
  synchronized void definitelyFailed(List<String> values) {
    definiteFailures++;
    definitelyFailed.addAll(values);
  }

  /**
   * Read-your-writes: the end of the records of {@code partition} acknowledged with a token at most
   * {@code minToken} — what a fetch with that {@code min_token} must see, on any node. Taken when
   * the fetch is sent; an acknowledgement the checker has not been told of yet only lowers it.
   */
  synchronized long mustSee(int partition, long minToken) {
    java.util.TreeMap<Long, Long> byToken = ackedEndByToken.get(partition);
    if (byToken == null) {
      return 0;
    }
    long end = 0;
    for (long e : byToken.headMap(minToken, true).values()) {
      end = Math.max(end, e);
    }
    return end;
  }

  /**
   * Judges a fetch of {@code partition} from {@code position} sent with a {@code min_token} whose
   * acknowledged records end at {@code mustSee}: below that end an answer without records — empty
   * or "offset out of range" — is a read-your-writes violation.
   */
  synchronized void judgeReadYourWrites(
      String where, int partition, long position, long mustSee, String answer, boolean empty) {
    if (position >= mustSee) {
      return;
    }
    readYourWritesJudged++;
    if (empty) {
      violation(
          "read-your-writes at "
              + where
              + ": partition "
              + partition
              + " fetched from "
              + position
              + " with a token whose acknowledged records end at "
              + mustSee
              + " answered "
              + answer);
    }
  }

  /** How many fetches asked below what their token had acknowledged (each judged). */
  synchronized long readYourWritesJudged() {
    return readYourWritesJudged;
  }

  /** A fetch of {@code partition} from {@code askedOffset} answered {@code records}. */
  synchronized void fetched(String where, int partition, long askedOffset, List<Rec> records) {
    long expect = askedOffset;
    for (Rec r : records) {
      fetchedRecords++;
      if (r.partition() != partition || r.offset() != expect) {
        outOfOrderReads++;
        violation(
            "out-of-order read at "
                + where
                + ": partition "
                + partition
                + " from offset "
                + askedOffset
                + " expected offset "
                + expect
                + " got "
                + r);
        return;
      }
      expect++;
      String other =
          seen.computeIfAbsent(partition, p -> new HashMap<>()).putIfAbsent(r.offset(), r.value());
      if (other != null && !other.equals(r.value())) {
        violation(
            "two values at partition "
                + partition
                + " offset "
                + r.offset()
                + ": "
                + other
                + " and "
                + r.value()
                + " (at "
                + where
                + ")");
      }
    }
  }

  synchronized void violation(String what) {
    violations.add(what);
  }

  synchronized long ackedAppends() {
    return ackedAppends;
  }

  /**
   * Compares everything reported with {@code readBack}: each partition's records from its first
   * offset to its high watermark, in the order fetched.
   */
  synchronized Verdict verify(Map<Integer, List<Rec>> readBack) {
    List<String> found = new ArrayList<>(violations);
    Map<Integer, TreeMap<Long, String>> at = new HashMap<>();
    Map<String, Integer> copies = new HashMap<>();
    long readBackRecords = 0;
    for (Map.Entry<Integer, List<Rec>> e : readBack.entrySet()) {
      int p = e.getKey();
      TreeMap<Long, String> m = new TreeMap<>();
      at.put(p, m);
      long expect = 0;
      for (Rec r : e.getValue()) {
        readBackRecords++;
        if (r.partition() != p || r.offset() != expect) {
          found.add("read-back of partition " + p + " expected offset " + expect + " got " + r);
          expect = r.offset();
        }
        expect++;
        m.put(r.offset(), r.value());
        copies.merge(r.value(), 1, Integer::sum);
        if (!sent.contains(r.value())) {
          found.add("read back a value never sent: " + r);
        }
        if (definitelyFailed.contains(r.value())) {
          found.add("an append refused as not appended is present: " + r);
        } else if (sent.contains(r.value())
            && !acked.containsKey(r.value())
            && !unknown.contains(r.value())) {
          found.add(
              "read back a value whose append was neither acknowledged nor of unknown outcome: "
                  + r);
        }
      }
    }
    long lost = 0;
    for (Rec r : acked.values()) {
      String v = at.getOrDefault(r.partition(), new TreeMap<>()).get(r.offset());
      if (!r.value().equals(v)) {
        lost++;
        if (lost <= MAX_DETAILS) {
          found.add("acknowledged " + r + " not read back there (found " + v + ")");
        }
      }
    }
    long duplicates = 0;
    for (Map.Entry<String, Integer> c : copies.entrySet()) {
      if (c.getValue() > 1) {
        duplicates += c.getValue() - 1;
        if (duplicates <= MAX_DETAILS) {
          found.add("value " + c.getKey() + " read back " + c.getValue() + " times");
        }
      }
    }
    long mismatched = 0;
    for (Map.Entry<Integer, Map<Long, String>> e : seen.entrySet()) {
      for (Map.Entry<Long, String> s : e.getValue().entrySet()) {
        String v = at.getOrDefault(e.getKey(), new TreeMap<>()).get(s.getKey());
        if (!s.getValue().equals(v) && ++mismatched <= MAX_DETAILS) {
          found.add(
              "fetched "
                  + s.getValue()
                  + " at partition "
                  + e.getKey()
                  + " offset "
                  + s.getKey()
                  + " during the run but read back "
                  + v);
        }
      }
    }
    long unknownPresent = unknown.stream().filter(copies::containsKey).count();
    return new Verdict(
        ackedAppends,
        acked.size(),
        duplicateAnswers,
        unknownAppends,
        unknownPresent,
        unknown.size() - unknownPresent,
        definiteFailures,
        lost,
        duplicates,
        outOfOrderReads,
        fetchedRecords,
        readBackRecords,
        List.copyOf(found));
  }
}
