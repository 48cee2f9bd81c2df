package dev.loam.journal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.JournalResult.Reason;
import dev.loam.journal.entry.SegmentPointer;
import org.junit.jupiter.api.Test;

/**
 * RELEASE, the journal's side of moving a partition away (docs/design/quorum.md "Moving a partition
 * between journals"): accepted only with the whole tail sealed up to its end, after which the
 * partition is forgotten and appends to it are refused.
 */
class JournalReleaseTest {
  private final JournalState s = new JournalState(1 << 20);

  private static Reason reason(JournalResult r) {
    assertThat(r).as(r.toString()).isInstanceOf(JournalResult.Rejected.class);
    return ((JournalResult.Rejected) r).reason();
  }

  @Test
  void aReleaseNeedsTheWholeTailSealedAndForgetsThePartition() {
    assertThat(reason(s.apply(new JournalEntry.Release(1, 0, 0))))
        .isEqualTo(Reason.UNKNOWN_PARTITION);
    s.apply(new JournalEntry.Host(1, 0, 0));
    s.apply(new JournalEntry.Append(1, 0, Batches.plain("a", 3)));
    // Unsealed records: refused, nothing changes.
    assertThat(reason(s.apply(new JournalEntry.Release(1, 0, 3)))).isEqualTo(Reason.BAD_SEAL);
    s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(0, 3, "seg/a")));
    // An append after the seal (a race with the mover): refused again.
    s.apply(new JournalEntry.Append(1, 0, Batches.plain("b", 1)));
    assertThat(reason(s.apply(new JournalEntry.Release(1, 0, 3)))).isEqualTo(Reason.BAD_SEAL);
    assertThat(s.highWatermark(1, 0)).hasValue(4);
    s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(3, 4, "seg/b")));
    // The end must be the sealed end exactly.
    assertThat(reason(s.apply(new JournalEntry.Release(1, 0, 3)))).isEqualTo(Reason.BAD_SEAL);
    assertThat(s.apply(new JournalEntry.Release(1, 0, 4))).isEqualTo(new JournalResult.Sealed(4));
    assertThat(s.highWatermark(1, 0)).isEmpty();
    assertThat(reason(s.apply(new JournalEntry.Append(1, 0, Batches.plain("c", 1)))))
        .isEqualTo(Reason.UNKNOWN_PARTITION);
    assertThat(s.unsealedBytes()).isZero();
    // The snapshot no longer holds it.
    assertThat(JournalState.restore(s.snapshot(), 1 << 20).highWatermark(1, 0)).isEmpty();
  }
}
