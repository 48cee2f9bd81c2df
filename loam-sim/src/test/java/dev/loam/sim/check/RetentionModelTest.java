package dev.loam.sim.check;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.TrimPartition;
import dev.loam.sim.SimClock;
import dev.loam.sim.SimStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The retention model on hand-made histories: trims inside the rules pass, trims past them are
 * violations whose dropped offsets count as lost, and a partition left above its limit after
 * healing is reported.
 */
class RetentionModelTest {
  private static final long STREAM_ID = 7;
  private static final Origin ORIGIN = new Origin("n0", 1, 0);

  private final SimClock clock = new SimClock(1_000_000);
  private final Checker checker = new Checker(clock, 60_000);
  private final SimStream bySize = new SimStream("s", 1, -1, 1_000, false);
  private final SimStream byTime = new SimStream("t", 1, 5_000, -1, false);
  private SimStream stream = bySize;
  private final RetentionModel model = new RetentionModel(clock, checker, id -> stream);
  private long nextOffset;
  private long index;

  /** Commits one batch of {@code records} records and {@code bytes} bytes stamped {@code ts}. */
  private void commit(int records, int bytes, long ts) {
    CommitWal c =
        new CommitWal(
            ORIGIN,
            "wal/standard/n0/" + index + ".wal",
            0,
            bytes,
            List.of(
                new CommitWal.ChunkCommit(
                    STREAM_ID,
                    0,
                    List.of(new CommitWal.BatchCommit(0, bytes, records, ts, -1, (short) 0, 0)))));
    Outcome o =
        new Outcome.WalCommitted(
            false,
            List.of(List.of(new Outcome.BatchResult(Outcome.BatchStatus.APPENDED, nextOffset))));
    model.onApplied(index++, c, o);
    nextOffset += records;
  }

  private void trim(long newStart, TrimPartition.Reason reason) {
    TrimPartition t = new TrimPartition(ORIGIN, STREAM_ID, 0, newStart, reason);
    model.onApplied(index++, new OwnerFenced(STREAM_ID, 1, t), new Outcome.Trimmed(newStart, 1));
  }

  /** Five batches of 10 records and 400 bytes each: offsets 0, 10, 20, 30, 40; hw 50. */
  private void fiveBatches() {
    for (int i = 0; i < 5; i++) {
      commit(10, 400, clock.millis());
    }
  }

  @Test
  void aSizeTrimThatKeepsTheLimitPasses() {
    fiveBatches();
    trim(20, TrimPartition.Reason.SIZE); // keeps 1200 >= 1000
    assertThat(checker.violations()).isEmpty();
    assertThat(model.logStart(STREAM_ID, 0)).isEqualTo(20);
    assertThat(model.droppedAgainstRules(STREAM_ID, 0, 5)).isFalse();
    assertThat(model.trimsJudged()).isEqualTo(1);
  }

  @Test
  void aSizeTrimBelowTheLimitIsAViolationAndItsOffsetsAreLost() {
    fiveBatches();
    trim(40, TrimPartition.Reason.SIZE); // keeps 400 < 1000: the rule allows up to 20
    assertThat(checker.violations())
        .singleElement()
        .asString()
        .contains("retention dropped records its rules keep", "rule allows up to 20");
    assertThat(model.droppedAgainstRules(STREAM_ID, 0, 19)).isFalse();
    assertThat(model.droppedAgainstRules(STREAM_ID, 0, 20)).isTrue();
    assertThat(model.droppedAgainstRules(STREAM_ID, 0, 39)).isTrue();
  }

  @Test
  void aSizeTrimNeverDropsTheNewestBatch() {
    stream = new SimStream("s", 1, -1, 1, false);
    fiveBatches();
    trim(50, TrimPartition.Reason.SIZE);
    assertThat(checker.violations()).singleElement().asString().contains("rule allows up to 40");
  }

  @Test
  void aTrimInsideABatchIsAViolation() {
    fiveBatches();
    trim(15, TrimPartition.Reason.SIZE);
    assertThat(checker.violations())
        .singleElement()
        .asString()
        .contains("trim ends inside a batch");
  }

  @Test
  void aTimeTrimDropsOnlyBatchesOlderThanTheRetention() {
    stream = byTime;
    long t0 = clock.millis();
    commit(10, 400, t0 - 20_000);
    commit(10, 400, t0 - 6_000);
    commit(10, 400, t0 - 1_000);
    trim(20, TrimPartition.Reason.TIME);
    assertThat(checker.violations()).isEmpty();
    trim(30, TrimPartition.Reason.TIME); // its newest record is 1 s old, the retention is 5 s
    assertThat(checker.violations())
        .singleElement()
        .asString()
        .contains("reason=TIME", "rule allows up to 20");
    assertThat(model.droppedAgainstRules(STREAM_ID, 0, 25)).isTrue();
  }

  @Test
  void aTrimByARuleTheStreamDoesNotHaveIsAViolation() {
    fiveBatches();
    trim(10, TrimPartition.Reason.TIME); // size retention only
    assertThat(checker.violations()).singleElement().asString().contains("rule allows up to 0");
  }

  @Test
  void afterHealingAPartitionAboveItsSizeLimitByMoreThanItsOldestEntryIsReported() {
    fiveBatches(); // 2000 bytes, limit 1000: the oldest entry of 400 bytes could go
    model.checkEnforced(bySize, STREAM_ID, 0, entries(0, 10));
    assertThat(checker.violations())
        .singleElement()
        .asString()
        .contains("size retention not enforced", "bytes kept=2000");
  }

  @Test
  void afterHealingAPartitionWithinItsSizeLimitPasses() {
    fiveBatches();
    trim(20, TrimPartition.Reason.SIZE); // 1200 kept; dropping 400 more would leave 800
    model.checkEnforced(bySize, STREAM_ID, 0, entries(20, 30));
    assertThat(checker.violations()).isEmpty();
  }

  @Test
  void afterHealingAnEntryLongPastItsTimeRetentionIsReported() {
    stream = byTime;
    commit(10, 400, clock.millis() - 60_000);
    model.checkEnforced(byTime, STREAM_ID, 0, List.of(entry(0, clock.millis() - 60_000)));
    assertThat(checker.violations())
        .singleElement()
        .asString()
        .contains("time retention not enforced");
  }

  private List<IndexEntry> entries(long... bases) {
    List<IndexEntry> out = new ArrayList<>();
    for (long b : bases) {
      out.add(entry(b, clock.millis()));
    }
    return out;
  }

  private static IndexEntry entry(long base, long maxTs) {
    return new IndexEntry(base, 10, "wal/standard/n0/x.wal", 0, 400, maxTs);
  }
}
