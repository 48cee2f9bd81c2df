package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.SwapSegment.SegmentEntry;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Moving a quorum partition between journals (command tag 48, docs/design/quorum.md "Moving a
 * partition between journals"): begun by anyone, completed only by a replica of the source while
 * the offset index ends at the sealed end, and never twice.
 */
class JournalMoveTest {
  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private final Map<String, Long> epochs = new HashMap<>();
  private long index;
  private final long now = 10_000_000;

  private Outcome apply(Command c) {
    return m.apply(++index, c);
  }

  private Origin o(String node) {
    return new Origin(node, epochs.get(node), now);
  }

  private static RejectReason refused(Outcome o) {
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) o).reason();
  }

  private MoveJournalPartition move(String node, long s, long end) {
    return new MoveJournalPartition(o(node), s, 0, "j1", "j2", end);
  }

  /** j1 on a (1 replica), j2 on b; one quorum partition on j1 with 10 sealed records. */
  private long setUp() {
    for (String n : List.of("a", "b")) {
      epochs.put(n, 10L);
      apply(new RegisterNode(o(n), "http://" + n + ":1", 1, "z-" + n));
    }
    apply(new PlaceJournal(o("a"), "j1", 1));
    apply(new PlaceJournal(o("a"), "j2", 1));
    Outcome out =
        apply(
            new CreateStream(
                o("a"),
                "default",
                "q",
                new StreamConfig(
                    1, DurabilityClass.QUORUM, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    long s = ((Outcome.StreamCreated) out).stream().id();
    assertThat(((Outcome.JournalPlaced) apply(new AssignJournalPartition(o("a"), s, 0))).journal())
        .isEqualTo("j1");
    assertThat(
            apply(
                new CommitJournalSegment(
                    o("a"),
                    "j1",
                    s,
                    0,
                    0,
                    10,
                    "seg/c/1/0/0-A.seg",
                    now,
                    1000,
                    List.of(new SegmentEntry(10, 0, 500, 42)))))
        .isEqualTo(new Outcome.SegmentSwapped(false, 0));
    return s;
  }

  @Test
  void aMoveFlipsTheAssignmentOnlyAtTheSealedEnd() {
    long s = setUp();
    Outcome begun = apply(move("b", s, MoveJournalPartition.BEGIN));
    assertThat(begun).isEqualTo(new Outcome.JournalPlaced("j2", List.of("b"), false));
    assertThat(m.reader().journalMoveTarget(s, 0)).contains("j2");
    assertThat(m.reader().journalOf(s, 0)).contains("j1");
    // Beginning again is a no-op; elsewhere is a conflict.
    assertThat(
            ((Outcome.JournalPlaced) apply(move("a", s, MoveJournalPartition.BEGIN)))
                .alreadyPlaced())
        .isTrue();
    // The snapshot (version 14) holds the move.
    byte[] snap = m.snapshot();
    assertThat(snap[5]).isEqualTo((byte) 14);
    assertThat(
            MetaStateMachine.restore(snap, MetaSettings.defaults())
                .reader()
                .journalMoveTarget(s, 0))
        .contains("j2");
    // Only a replica of the source completes it, and only at the index's end.
    assertThat(refused(apply(move("b", s, 10)))).isEqualTo(RejectReason.NOT_OWNER);
    Outcome early = apply(move("a", s, 8));
    assertThat(refused(early)).isEqualTo(RejectReason.CONFLICT);
    assertThat(((Outcome.Rejected) early).message()).contains("indexEnd=10", "sealedEnd=8");
    assertThat(m.reader().journalOf(s, 0)).contains("j1");
    assertThat(apply(move("a", s, 10)))
        .isEqualTo(new Outcome.JournalPlaced("j2", List.of("b"), false));
    assertThat(m.reader().journalOf(s, 0)).contains("j2");
    assertThat(m.reader().journalMoveTarget(s, 0)).isEmpty();
    assertThat(m.reader().journalPartitions("j1")).isEmpty();
    // A retry after the flip answers the placement; the old journal can no longer commit.
    assertThat(((Outcome.JournalPlaced) apply(move("a", s, 10))).alreadyPlaced()).isTrue();
    assertThat(
            refused(
                apply(
                    new CommitJournalSegment(
                        o("a"),
                        "j1",
                        s,
                        0,
                        10,
                        20,
                        "seg/c/1/0/10-B.seg",
                        now,
                        1000,
                        List.of(new SegmentEntry(10, 0, 500, 42))))))
        .isEqualTo(RejectReason.NOT_OWNER);
    assertThat(m.snapshot()[5]).isEqualTo((byte) 13);
  }

  @Test
  void aMoveNeedsItsSourceAndAnotherPlacedJournal() {
    long s = setUp();
    assertThat(refused(apply(new MoveJournalPartition(o("a"), s, 0, "j1", "j1", -1))))
        .isEqualTo(RejectReason.INVALID);
    assertThat(refused(apply(new MoveJournalPartition(o("a"), s, 0, "j1", "nope", -1))))
        .isEqualTo(RejectReason.INVALID);
    // A move to where the partition already is: answered, nothing changes.
    assertThat(
            ((Outcome.JournalPlaced) apply(new MoveJournalPartition(o("a"), s, 0, "j2", "j1", -1)))
                .alreadyPlaced())
        .isTrue();
    assertThat(m.reader().journalMoveTarget(s, 0)).isEmpty();
    assertThat(refused(apply(new MoveJournalPartition(o("a"), s, 1, "j1", "j2", -1))))
        .isEqualTo(RejectReason.NOT_FOUND);
    // Completing a move never begun is a conflict.
    assertThat(refused(apply(move("a", s, 10)))).isEqualTo(RejectReason.CONFLICT);
    assertThat(m.reader().journalOf(s, 0)).contains("j1");
  }
}
