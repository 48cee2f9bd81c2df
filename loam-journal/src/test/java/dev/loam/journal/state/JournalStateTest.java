package dev.loam.journal.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.JournalResult.Reason;
import dev.loam.journal.entry.SegmentPointer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The journal state machine's rules (docs/design/quorum.md "The journal state machine"). */
class JournalStateTest {
  private final JournalState s = new JournalState(1 << 20);

  private JournalResult append(long stream, int p, byte[] batch) {
    return s.apply(new JournalEntry.Append(stream, p, batch));
  }

  @Test
  void offsetsAreAssignedInLogOrderPerPartition() {
    assertThat(s.apply(new JournalEntry.Host(1, 0, 0))).isEqualTo(new JournalResult.Hosted(0));
    assertThat(s.apply(new JournalEntry.Host(1, 1, 100))).isEqualTo(new JournalResult.Hosted(100));
    assertThat(append(1, 0, Batches.plain("a", 3))).isEqualTo(new JournalResult.Appended(0, 2));
    assertThat(append(1, 1, Batches.plain("b", 2))).isEqualTo(new JournalResult.Appended(100, 101));
    assertThat(append(1, 0, Batches.plain("c", 1))).isEqualTo(new JournalResult.Appended(3, 3));
    JournalRead r = s.read(1, 0, 0, 1 << 20);
    assertThat(Batches.values(r.batches())).containsExactly("0:a-0", "1:a-1", "2:a-2", "3:c-0");
    assertThat(r.highWatermark()).isEqualTo(4);
    assertThat(Batches.values(s.read(1, 0, 3, 1 << 20).batches())).containsExactly("3:c-0");
    assertThat(Batches.values(s.read(1, 1, 101, 1 << 20).batches()))
        .containsExactly("100:b-0", "101:b-1");
    assertThat(s.read(1, 0, 4, 100).batches()).isEmpty();
    assertThat(s.appliedEntries()).isEqualTo(5);
  }

  @Test
  void readsStopNearMaxBytesButReturnAtLeastOneBatch() {
    s.apply(new JournalEntry.Host(1, 0, 0));
    byte[] b = Batches.plain("x", 1);
    for (int i = 0; i < 5; i++) {
      append(1, 0, Batches.plain("x", 1));
    }
    assertThat(s.read(1, 0, 0, 1).batches()).hasSize(1);
    assertThat(s.read(1, 0, 0, b.length * 3).batches()).hasSize(3);
  }

  @Test
  void unknownAndDoubleHostedPartitionsAreRefused() {
    assertThat(append(9, 0, Batches.plain("a", 1)))
        .isInstanceOfSatisfying(
            JournalResult.Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(Reason.UNKNOWN_PARTITION);
              assertThat(r.message()).contains("stream=9 partition=0");
            });
    s.apply(new JournalEntry.Host(9, 0, 0));
    assertThat(s.apply(new JournalEntry.Host(9, 0, 5)))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.ALREADY_HOSTED);
    assertThatThrownBy(() -> s.read(9, 1, 0, 10))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.NOT_FOUND));
    assertThatThrownBy(() -> s.read(9, 0, 1, 10)).hasMessageContaining("offset=1");
  }

  @Test
  void idempotentProducerRetriesAreDeduplicated() {
    s.apply(new JournalEntry.Host(1, 0, 0));
    byte[] first = Batches.batch(7, (short) 0, 0, "a", 2);
    assertThat(append(1, 0, first)).isEqualTo(new JournalResult.Appended(0, 1));
    assertThat(append(1, 0, Batches.batch(7, (short) 0, 2, "b", 1)))
        .isEqualTo(new JournalResult.Appended(2, 2));
    // The retry of the first batch: its offsets again, nothing appended.
    assertThat(append(1, 0, first)).isEqualTo(new JournalResult.Duplicate(0, 1));
    assertThat(s.highWatermark(1, 0).getAsLong()).isEqualTo(3);
    assertThat(append(1, 0, Batches.batch(7, (short) 0, 5, "gap", 1)))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.OUT_OF_ORDER_SEQUENCE);
    // A new epoch starts at sequence 0; the old epoch is fenced from then on.
    assertThat(append(1, 0, Batches.batch(7, (short) 1, 0, "c", 1)))
        .isEqualTo(new JournalResult.Appended(3, 3));
    assertThat(append(1, 0, Batches.batch(7, (short) 0, 3, "old", 1)))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.PRODUCER_FENCED);
    assertThat(s.highWatermark(1, 0).getAsLong()).isEqualTo(4);
  }

  @Test
  void theTailIsBoundedAndSealingFreesIt() {
    byte[] b = Batches.plain("x".repeat(100_000), 1);
    JournalState small = new JournalState(3L * b.length);
    small.apply(new JournalEntry.Host(1, 0, 0));
    for (int i = 0; i < 3; i++) {
      assertThat(small.apply(new JournalEntry.Append(1, 0, b)))
          .isEqualTo(new JournalResult.Appended(i, i));
    }
    assertThat(small.apply(new JournalEntry.Append(1, 0, b)))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.TAIL_FULL);
    assertThat(small.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(0, 2, "seg/0"))))
        .isEqualTo(new JournalResult.Sealed(2));
    assertThat(small.unsealedBytes()).isEqualTo(b.length);
    assertThat(small.apply(new JournalEntry.Append(1, 0, b)))
        .isEqualTo(new JournalResult.Appended(3, 3));
  }

  @Test
  void sealsMustStartAtTheSealedOffsetAndEndAtABatchBoundary() {
    s.apply(new JournalEntry.Host(1, 0, 10));
    append(1, 0, Batches.plain("a", 3)); // 10..12
    append(1, 0, Batches.plain("b", 2)); // 13..14
    assertThat(s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(11, 13, "k"))))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.BAD_SEAL);
    assertThat(s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(10, 12, "k"))))
        .extracting(r -> ((JournalResult.Rejected) r).message())
        .asString()
        .contains("batch boundary");
    assertThat(s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(10, 16, "k"))))
        .extracting(r -> ((JournalResult.Rejected) r).reason())
        .isEqualTo(Reason.BAD_SEAL);
    assertThat(s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(10, 13, "seg/a"))))
        .isEqualTo(new JournalResult.Sealed(13));
    JournalRead sealed = s.read(1, 0, 11, 1 << 20);
    assertThat(sealed.batches()).isEmpty();
    assertThat(sealed.segment()).contains(new SegmentPointer(10, 13, "seg/a"));
    assertThat(Batches.values(s.read(1, 0, 13, 1 << 20).batches()))
        .containsExactly("13:b-0", "14:b-1");
    assertThat(s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(13, 15, "seg/b"))))
        .isEqualTo(new JournalResult.Sealed(15));
    assertThat(s.read(1, 0, 14, 10).segment()).contains(new SegmentPointer(13, 15, "seg/b"));
    assertThat(s.unsealedBytes()).isZero();
  }

  @Test
  void unsealedRangesStartAtTheSealedOffsetAndStopNearTheBound() {
    s.apply(new JournalEntry.Host(1, 0, 0));
    s.apply(new JournalEntry.Host(1, 1, 0));
    byte[] b = Batches.plain("z".repeat(100), 1);
    for (int i = 0; i < 4; i++) {
      append(1, 0, Batches.plain("z".repeat(100), 1));
    }
    append(1, 1, Batches.plain("small", 1));
    List<UnsealedRange> rs = s.unsealed(2L * b.length, 2L * b.length);
    assertThat(rs).hasSize(1);
    assertThat(rs.get(0).partition()).isZero();
    assertThat(rs.get(0).baseOffset()).isZero();
    assertThat(rs.get(0).batches()).hasSize(2);
    s.apply(new JournalEntry.Seal(1, 0, new SegmentPointer(0, 2, "seg")));
    assertThat(s.unsealed(1, 1)).extracting(UnsealedRange::baseOffset).containsExactly(2L, 0L);
    assertThatThrownBy(() -> s.unsealed(0, 1)).hasMessageContaining("minBytes=0");
  }
}
