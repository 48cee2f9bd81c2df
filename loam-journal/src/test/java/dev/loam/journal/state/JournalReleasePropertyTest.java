package dev.loam.journal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * RELEASE interleaved at random with appends and seals (the race of a move with producers, in log
 * order): a release is accepted only when every acknowledged offset is below its end and sealed,
 * and after it no append is acknowledged, so a move never drops an acknowledged record.
 */
class JournalReleasePropertyTest {
  /** 0 append (1..3 records), 1 seal the oldest tail batch, 2 release at the next offset. */
  @Provide
  static Arbitrary<List<Integer>> ops() {
    return Arbitraries.integers().between(0, 2).list().ofMaxSize(60);
  }

  @Property(tries = 300)
  void aReleaseNeverLeavesAnAcknowledgedRecordUnsealed(@ForAll("ops") List<Integer> ops) {
    JournalState s = new JournalState(1 << 24);
    s.apply(new JournalEntry.Host(1, 0, 0));
    long acknowledgedEnd = 0;
    long sealedEnd = 0;
    Long releasedAt = null;
    int n = 0;
    for (int op : ops) {
      n++;
      if (op == 0) {
        JournalResult r = s.apply(new JournalEntry.Append(1, 0, Batches.plain("v" + n, 1 + n % 3)));
        if (r instanceof JournalResult.Appended a) {
          assertThat(releasedAt).as("an append acknowledged after the release").isNull();
          acknowledgedEnd = a.lastOffset() + 1;
        } else {
          assertThat(releasedAt).as("only a released partition refuses appends here").isNotNull();
        }
      } else if (op == 1 && releasedAt == null) {
        List<UnsealedRange> tail = s.unsealed(1, 1);
        if (!tail.isEmpty()) {
          UnsealedRange oldest = tail.get(0);
          long end =
              oldest.baseOffset()
                  + oldest.batches().stream()
                      .mapToLong(
                          b ->
                              dev.loam.wal.batch.RecordBatch.readFrom(java.nio.ByteBuffer.wrap(b))
                                  .recordCount())
                      .sum();
          JournalResult r =
              s.apply(
                  new JournalEntry.Seal(
                      1, 0, new SegmentPointer(oldest.baseOffset(), end, "seg/" + n)));
          assertThat(r).isEqualTo(new JournalResult.Sealed(end));
          sealedEnd = end;
        }
      } else if (op == 2) {
        long next = s.highWatermark(1, 0).orElse(-1);
        JournalResult r = s.apply(new JournalEntry.Release(1, 0, Math.max(next, 0)));
        if (r instanceof JournalResult.Sealed released) {
          assertThat(releasedAt).isNull();
          assertThat(released.sealedOffset())
              .as("the release's end covers every acknowledged record, all sealed")
              .isEqualTo(acknowledgedEnd)
              .isEqualTo(sealedEnd);
          releasedAt = released.sealedOffset();
        } else {
          assertThat(releasedAt == null && acknowledgedEnd == sealedEnd)
              .as("a release is refused only with unsealed records or once released")
              .isFalse();
        }
      }
    }
  }
}
