package dev.loam.examples.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.examples.process.ChaosChecker.Rec;
import dev.loam.examples.process.ChaosChecker.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chaos checker catches each kind of violation it claims to, and passes a clean history. */
class ChaosCheckerTest {
  final ChaosChecker c = new ChaosChecker();

  /** Three acked records a0..a2 at partition 0 offsets 0..2, one unknown u0 present at 3. */
  private List<Rec> cleanHistory() {
    c.sent(List.of("a0", "a1"));
    c.acked(0, List.of(0L, 1L), List.of("a0", "a1"), false);
    c.sent(List.of("a2"));
    c.acked(0, List.of(2L), List.of("a2"), false);
    c.acked(0, List.of(2L), List.of("a2"), true); // an idempotent retry answered duplicate
    c.sent(List.of("u0"));
    c.unknownOutcome(List.of("u0"));
    c.sent(List.of("u1"));
    c.unknownOutcome(List.of("u1"));
    c.sent(List.of("f0"));
    c.definitelyFailed(List.of("f0"));
    c.fetched("n1", 0, 1, List.of(new Rec(0, 1, "a1"), new Rec(0, 2, "a2")));
    return new ArrayList<>(
        List.of(
            new Rec(0, 0, "a0"), new Rec(0, 1, "a1"), new Rec(0, 2, "a2"), new Rec(0, 3, "u0")));
  }

  @Test
  void aCleanHistoryPasses() {
    Verdict v = c.verify(Map.of(0, cleanHistory()));
    assertThat(v.violations()).isEmpty();
    assertThat(v.ackedAppends()).isEqualTo(3);
    assertThat(v.ackedRecords()).isEqualTo(3);
    assertThat(v.duplicateAnswers()).isEqualTo(1);
    assertThat(v.unknownAppends()).isEqualTo(2);
    assertThat(v.unknownRecordsPresent()).isEqualTo(1);
    assertThat(v.unknownRecordsAbsent()).isEqualTo(1);
    assertThat(v.lost()).isZero();
    assertThat(v.duplicates()).isZero();
    assertThat(v.fetchedRecords()).isEqualTo(2);
    assertThat(v.readBackRecords()).isEqualTo(4);
  }

  @Test
  void aFetchThatMissesWhatItsTokenAcknowledgedBreaksReadYourWrites() {
    c.sent(List.of("a0", "a1"));
    c.acked(0, List.of(0L, 1L), List.of("a0", "a1"), false, 7);
    c.sent(List.of("a2"));
    c.acked(0, List.of(2L), List.of("a2"), false, 9);
    assertThat(c.mustSee(0, 6)).isZero();
    assertThat(c.mustSee(0, 7)).isEqualTo(2);
    assertThat(c.mustSee(0, 100)).isEqualTo(3);
    assertThat(c.mustSee(1, 100)).isZero();

    // Token 7 acknowledged offsets 0..1: an empty answer from 1 is wrong, from 2 it is allowed.
    c.judgeReadYourWrites("n2", 0, 2, c.mustSee(0, 7), "200 {}", true);
    c.judgeReadYourWrites("n2", 0, 1, c.mustSee(0, 7), "200 {records:[a1]}", false);
    assertThat(c.verify(Map.of(0, List.of())).violations())
        .noneMatch(v -> v.contains("read-your-writes"));
    assertThat(c.readYourWritesJudged()).isEqualTo(1);

    c.judgeReadYourWrites("n3", 0, 1, c.mustSee(0, 8), "416 {}", true);
    assertThat(c.verify(Map.of(0, List.of())).violations())
        .anyMatch(v -> v.contains("read-your-writes at n3") && v.contains("end at 2"));
  }

  @Test
  void anAcknowledgedRecordMissingOrMovedIsLost() {
    List<Rec> back = cleanHistory();
    back.set(1, new Rec(0, 1, "u1")); // a1 replaced
    Verdict v = c.verify(Map.of(0, back));
    assertThat(v.lost()).isEqualTo(1);
    assertThat(v.violations()).anyMatch(s -> s.contains("a1") && s.contains("not read back"));
  }

  @Test
  void aValueReadTwiceIsADuplicate() {
    List<Rec> back = cleanHistory();
    back.add(new Rec(0, 4, "u0"));
    Verdict v = c.verify(Map.of(0, back));
    assertThat(v.duplicates()).isEqualTo(1);
    assertThat(v.lost()).isZero();
    assertThat(v.violations()).anyMatch(s -> s.contains("u0 read back 2 times"));
  }

  @Test
  void aFetchThatSkipsOrRepeatsIsOutOfOrder() {
    cleanHistory();
    c.fetched("n2", 0, 0, List.of(new Rec(0, 0, "a0"), new Rec(0, 2, "a2")));
    c.fetched("n3", 0, 1, List.of(new Rec(0, 0, "a0")));
    Verdict v =
        c.verify(Map.of(0, List.of(new Rec(0, 0, "a0"), new Rec(0, 1, "a1"), new Rec(0, 2, "a2"))));
    assertThat(v.outOfOrderReads()).isEqualTo(2);
    assertThat(v.violations()).hasSize(2).allMatch(s -> s.startsWith("out-of-order read"));
  }

  @Test
  void twoValuesAtOneOffsetAreCaughtInAcksAndFetches() {
    List<Rec> back = cleanHistory();
    c.sent(List.of("b0"));
    c.acked(0, List.of(1L), List.of("b0"), false);
    c.fetched("n2", 0, 2, List.of(new Rec(0, 2, "zz")));
    Verdict v = c.verify(Map.of(0, back));
    assertThat(v.violations())
        .anyMatch(s -> s.startsWith("offset reused: partition 0 offset 1"))
        .anyMatch(s -> s.startsWith("two values at partition 0 offset 2"));
  }

  @Test
  void gapsPhantomsAndRefusedAppendsThatLandedAreViolations() {
    List<Rec> back = cleanHistory();
    back.add(new Rec(0, 5, "f0")); // gap at 4, and a definitely failed append present
    back.add(new Rec(0, 6, "never-sent"));
    Verdict v = c.verify(Map.of(0, back));
    assertThat(v.violations())
        .anyMatch(s -> s.startsWith("read-back of partition 0 expected offset 4"))
        .anyMatch(s -> s.startsWith("an append refused as not appended is present"))
        .anyMatch(s -> s.startsWith("read back a value never sent"));
  }

  @Test
  void aFetchedValueThatChangesByTheReadBackIsCaught() {
    List<Rec> back = cleanHistory();
    c.fetched("n1", 0, 3, List.of(new Rec(0, 3, "u1")));
    Verdict v = c.verify(Map.of(0, back));
    assertThat(v.violations()).anyMatch(s -> s.contains("during the run but read back u0"));
  }

  /**
   * A quorum stream whose journal dropped an acknowledged record when its old leader came back (a
   * rejoin that overwrote a committed entry with one it had logged but never committed): the
   * dropped record is lost, and the record that took its offset, never acknowledged, is caught.
   */
  @Test
  void aQuorumReadBackMissingAnAcknowledgedRecordIsLost() {
    c.sent(List.of("qi1-0", "qi1-1"));
    c.acked(0, List.of(0L, 1L), List.of("qi1-0", "qi1-1"), false, -1);
    c.sent(List.of("qx0-0"));
    c.acked(1, List.of(0L), List.of("qx0-0"), false, -1);
    c.sent(List.of("qx0-1"));
    // The answer never came: the old leader logged it and died before it committed.
    c.unknownOutcome(List.of("qx0-1"));
    c.sent(List.of("qx0-2"));
    Verdict clean =
        c.verify(
            Map.of(
                0,
                List.of(new Rec(0, 0, "qi1-0"), new Rec(0, 1, "qi1-1")),
                1,
                List.of(new Rec(1, 0, "qx0-0"))));
    assertThat(clean.violations()).isEmpty();
    assertThat(clean.unknownRecordsAbsent()).isEqualTo(1);

    // The rejoined old leader's uncommitted entry replaced the acknowledged one at partition 1.
    Verdict v =
        c.verify(
            Map.of(
                0,
                List.of(new Rec(0, 0, "qi1-0"), new Rec(0, 1, "qi1-1")),
                1,
                List.of(new Rec(1, 0, "qx0-2"))));
    assertThat(v.lost()).isEqualTo(1);
    assertThat(v.violations())
        .anyMatch(s -> s.contains("qx0-0") && s.contains("not read back"))
        .anyMatch(
            s ->
                s.startsWith("read back a value whose append was neither acknowledged")
                    && s.contains("qx0-2"));
  }

  /** The failover time is from the kill to the first ack of a request sent after it. */
  @Test
  void failoverIsTheFirstAckOfARequestSentAfterTheKill() {
    long ms = 1_000_000;
    List<long[]> acks =
        List.of(
            new long[] {0, 5 * ms}, // sent before the kill at 10 ms: its answer does not count
            new long[] {9 * ms, 12 * ms},
            new long[] {15 * ms, 2_400 * ms},
            new long[] {20 * ms, 1_900 * ms},
            new long[] {3_000 * ms, 3_002 * ms});
    assertThat(ChaosStream.failoverMillis(List.of(10 * ms, 2_999 * ms, 4_000 * ms), acks))
        .containsExactly(1_890L, 3L, -1L);
  }
}
