package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Quorum-journal placement (docs/design/quorum.md "Placement"), rule by rule. */
class JournalPlacementTest {
  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private final Map<String, Long> epochs = new HashMap<>();
  private long index;
  private final long now = 1_000_000;

  private Outcome apply(Command c) {
    return m.apply(++index, c);
  }

  private Origin o(String node) {
    return new Origin(node, epochs.get(node), now);
  }

  private void register(String node, String zone, int slots) {
    epochs.put(node, 10L);
    assertThat(apply(new RegisterNode(o(node), "http://" + node + ":1", slots, zone)))
        .isInstanceOf(Outcome.NodeRegistered.class);
  }

  private long create(String name, DurabilityClass d, int partitions) {
    Outcome out =
        apply(
            new CreateStream(
                o("a"),
                "default",
                name,
                new StreamConfig(partitions, d, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    return ((Outcome.StreamCreated) out).stream().id();
  }

  private static Outcome.JournalPlaced placed(Outcome o) {
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.JournalPlaced.class);
    return (Outcome.JournalPlaced) o;
  }

  @Test
  void replicasGoToDistinctZonesLeastLoadedFirst() {
    register("a", "z1", 1);
    register("b", "z1", 1);
    register("c", "z2", 1);
    register("d", "z3", 1);
    // a, then the first node of another zone (c), then of the third (d): b shares a's zone.
    assertThat(placed(apply(new PlaceJournal(o("a"), "j1", 3))).replicas())
        .containsExactly("a", "c", "d");
    // b hosts nothing yet, so it leads the next journal's list; then zones z2, z3 again.
    assertThat(placed(apply(new PlaceJournal(o("a"), "j2", 3))).replicas())
        .containsExactly("b", "c", "d");
    // Placing again answers the placement and changes nothing.
    Outcome.JournalPlaced again = placed(apply(new PlaceJournal(o("b"), "j1", 3)));
    assertThat(again.alreadyPlaced()).isTrue();
    assertThat(again.replicas()).containsExactly("a", "c", "d");
    assertThat(m.reader().journalReplicas("j2")).contains(List.of("b", "c", "d"));
  }

  @Test
  void withoutEnoughZonesReplicasShareOne() {
    register("a", "z", 1);
    register("b", "z", 1);
    register("c", "z", 1);
    assertThat(placed(apply(new PlaceJournal(o("a"), "j", 3))).replicas())
        .containsExactly("a", "b", "c");
  }

  @Test
  void deadNodesAndBadRequestsAreRefused() {
    register("a", "z1", 1);
    register("b", "z2", 1);
    register("c", "z3", 1);
    assertThat(apply(new ExpireNode(o("a"), "c", 10L, 1000)))
        .isInstanceOf(Outcome.NodeStatusChanged.class);
    Outcome tooFew = apply(new PlaceJournal(o("a"), "j", 3));
    assertThat(tooFew).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) tooFew).message()).contains("liveNodes=2");
    assertThat(((Outcome.Rejected) apply(new PlaceJournal(o("a"), "bad name", 3))).reason())
        .isEqualTo(RejectReason.INVALID);
    // A zombie process (older epoch) is fenced like for every other command.
    Outcome zombie = apply(new PlaceJournal(new Origin("a", 9, now), "j", 1));
    assertThat(((Outcome.Rejected) zombie).reason()).isEqualTo(RejectReason.STALE_NODE_EPOCH);
  }

  @Test
  void partitionsGoToTheJournalWithFewestAndStay() {
    register("a", "z1", 1);
    long standard = create("plain", DurabilityClass.STANDARD, 1);
    long q = create("q", DurabilityClass.QUORUM, 3);
    assertThat(((Outcome.Rejected) apply(new AssignJournalPartition(o("a"), q, 0))).message())
        .contains("no journal is placed");
    apply(new PlaceJournal(o("a"), "j1", 1));
    apply(new PlaceJournal(o("a"), "j2", 1));
    assertThat(placed(apply(new AssignJournalPartition(o("a"), q, 0))).journal()).isEqualTo("j1");
    assertThat(placed(apply(new AssignJournalPartition(o("a"), q, 1))).journal()).isEqualTo("j2");
    assertThat(placed(apply(new AssignJournalPartition(o("a"), q, 2))).journal()).isEqualTo("j1");
    Outcome.JournalPlaced again = placed(apply(new AssignJournalPartition(o("a"), q, 1)));
    assertThat(again.journal()).isEqualTo("j2");
    assertThat(again.alreadyPlaced()).isTrue();
    assertThat(m.reader().journalOf(q, 2)).contains("j1");
    assertThat(m.reader().journals().keySet()).containsExactly("j1", "j2");
    assertThat(m.reader().journalPartitions("j1"))
        .containsExactly(
            new dev.loam.meta.command.JournalPartition(q, 0),
            new dev.loam.meta.command.JournalPartition(q, 2));
    assertThat(((Outcome.Rejected) apply(new AssignJournalPartition(o("a"), standard, 0))).reason())
        .isEqualTo(RejectReason.INVALID);
    assertThat(((Outcome.Rejected) apply(new AssignJournalPartition(o("a"), q, 3))).reason())
        .isEqualTo(RejectReason.NOT_FOUND);
  }

  @Test
  void theSnapshotHoldsThePlacementAndADeletedStreamLeavesIt() {
    register("a", "z1", 1);
    register("b", "z2", 1);
    long q = create("q", DurabilityClass.QUORUM, 2);
    long before = m.snapshot()[5];
    assertThat(before).isNotEqualTo(13);
    apply(new PlaceJournal(o("a"), "j1", 2));
    apply(new AssignJournalPartition(o("a"), q, 0));
    apply(new AssignJournalPartition(o("a"), q, 1));
    byte[] snap = m.snapshot();
    assertThat(snap[5]).as("version").isEqualTo((byte) 13);
    MetaStateMachine back = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(back.snapshot()).isEqualTo(snap);
    assertThat(back.reader().journalOf(q, 1)).contains("j1");
    assertThat(back.reader().journalReplicas("j1")).contains(List.of("a", "b"));
    apply(new DeleteStream(o("a"), "default", "q"));
    assertThat(m.reader().journalOf(q, 0)).isEmpty();
    long q2 = create("q2", DurabilityClass.QUORUM, 1);
    apply(new PlaceJournal(o("a"), "j0", 1));
    // j1 has no partitions left, j0 none either: the smaller name takes it.
    assertThat(placed(apply(new AssignJournalPartition(o("a"), q2, 0))).journal()).isEqualTo("j0");
  }
}
