package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.AssignJournalPartition.Spread;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.StreamConfig;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Quorum partitions spread over a family of journals (docs/design/quorum.md "Placement", command
 * tag 53): how many journals apply places, where, and how partitions spread over them.
 */
class JournalFamilyTest {
  private static final Spread QUORUM = new Spread("quorum-", 3, "journal");

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

  private void journalNode(String node, String zone, int slots) {
    epochs.put(node, 10L);
    assertThat(apply(new RegisterNode(o(node), "http://" + node + ":1", slots, zone)))
        .isInstanceOf(Outcome.NodeRegistered.class);
    apply(new SetNodeEndpoint(o(node), "journal", node + ":7000"));
  }

  private long quorumStream(String name, int partitions) {
    Outcome out =
        apply(
            new CreateStream(
                o("a"),
                "default",
                name,
                new StreamConfig(
                    partitions,
                    DurabilityClass.QUORUM,
                    -1,
                    -1,
                    StreamConfig.CleanupPolicy.DELETE)));
    return ((Outcome.StreamCreated) out).stream().id();
  }

  private Outcome.JournalPlaced assign(long stream, int partition) {
    Outcome o = apply(new AssignJournalPartition(o("a"), stream, partition, QUORUM));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.JournalPlaced.class);
    return (Outcome.JournalPlaced) o;
  }

  @Test
  void threeJournalNodesHoldOneJournal() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    journalNode("c", "z3", 1);
    long q = quorumStream("q", 4);
    for (int p = 0; p < 4; p++) {
      assertThat(assign(q, p).journal()).isEqualTo("quorum-1");
    }
    assertThat(m.reader().journals()).containsOnlyKeys("quorum-1");
  }

  @Test
  void fourNodesHoldTwoJournalsCoveringEveryNodeAndPartitionsAlternate() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    journalNode("c", "z3", 1);
    journalNode("d", "z1", 1);
    long q = quorumStream("q", 4);
    // ceil(4 slots / 3 replicas) = 2 journals, placed at the first assignment.
    assertThat(assign(q, 0).journal()).isEqualTo("quorum-1");
    assertThat(m.reader().journalReplicas("quorum-1")).contains(List.of("a", "b", "c"));
    // d hosts nothing, so it leads the second journal; then zones z2 and z3 (a shares d's zone).
    assertThat(m.reader().journalReplicas("quorum-2")).contains(List.of("d", "b", "c"));
    assertThat(assign(q, 1).journal()).isEqualTo("quorum-2");
    assertThat(assign(q, 2).journal()).isEqualTo("quorum-1");
    assertThat(assign(q, 3).journal()).isEqualTo("quorum-2");
    Outcome.JournalPlaced again = assign(q, 3);
    assertThat(again.alreadyPlaced()).isTrue();
    assertThat(again.journal()).isEqualTo("quorum-2");
  }

  @Test
  void slotsCountAsCapacityAndTheFamilyGrowsWhenNodesJoin() {
    journalNode("a", "z1", 2);
    journalNode("b", "z2", 2);
    journalNode("c", "z3", 2);
    long q = quorumStream("q", 1);
    assign(q, 0);
    // 6 slots / 3 replicas: two journals, each on all three nodes.
    assertThat(m.reader().journals()).containsOnlyKeys("quorum-1", "quorum-2");
    journalNode("d", "z1", 3);
    long q2 = quorumStream("q2", 2);
    // 9 slots: a third journal, led by the new node, takes the next partition (it has none).
    assertThat(assign(q2, 0).journal()).isEqualTo("quorum-2");
    assertThat(m.reader().journals()).containsOnlyKeys("quorum-1", "quorum-2", "quorum-3");
    assertThat(m.reader().journalReplicas("quorum-3").orElseThrow()).startsWith("d");
    assertThat(assign(q2, 1).journal()).isEqualTo("quorum-3");
  }

  @Test
  void aJournalPlacedBeforeTheFamilyIsItsFirstMemberAndOthersAreIgnored() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    journalNode("c", "z3", 1);
    apply(new PlaceJournal(o("a"), "quorum-1", 3, "journal"));
    apply(new PlaceJournal(o("a"), "other", 1));
    apply(new PlaceJournal(o("a"), "quorum-01", 1));
    long q = quorumStream("q", 2);
    assertThat(assign(q, 0).journal()).isEqualTo("quorum-1");
    assertThat(assign(q, 1).journal()).isEqualTo("quorum-1");
    assertThat(m.reader().journals()).containsOnlyKeys("other", "quorum-01", "quorum-1");
  }

  @Test
  void nodesWithoutTheEndpointOrDeadDoNotCountAndTooFewAreRefused() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    epochs.put("x", 10L);
    apply(new RegisterNode(o("x"), "http://x:1", 5, "z3")); // no journal endpoint
    long q = quorumStream("q", 1);
    Outcome refused = apply(new AssignJournalPartition(o("a"), q, 0, QUORUM));
    assertThat(refused).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) refused).reason()).isEqualTo(RejectReason.INVALID);
    assertThat(((Outcome.Rejected) refused).message()).contains("count=2").contains("stream=" + q);
    assertThat(m.reader().journals()).isEmpty();
    journalNode("c", "z3", 1);
    assertThat(assign(q, 0).journal()).isEqualTo("quorum-1");
    // With a node dead the family keeps its journal and still takes partitions.
    apply(new ExpireNode(o("a"), "c", 10L, 1000));
    long q2 = quorumStream("q2", 1);
    assertThat(assign(q2, 0).journal()).isEqualTo("quorum-1");
  }

  @Test
  void aMalformedSpreadIsRefusedNamingWhatIsWrong() {
    journalNode("a", "z1", 1);
    long q = quorumStream("q", 1);
    Outcome bad = apply(new AssignJournalPartition(o("a"), q, 0, new Spread("bad name", 1, "j")));
    assertThat(((Outcome.Rejected) bad).message()).contains("prefix=bad name");
    Outcome noEndpoint = apply(new AssignJournalPartition(o("a"), q, 0, new Spread("q-", 1, "")));
    assertThat(((Outcome.Rejected) noEndpoint).reason()).isEqualTo(RejectReason.INVALID);
    assertThat(m.reader().journals()).isEmpty();
  }

  @Test
  void theFamilyIsBounded() {
    journalNode("a", "z1", 1000);
    long q = quorumStream("q", 1);
    apply(new AssignJournalPartition(o("a"), q, 0, new Spread("q-", 1, "journal")));
    assertThat(m.reader().journals()).hasSize(JournalTable.MAX_FAMILY);
  }

  private Outcome.JournalPlaced assignHinted(long stream, int partition, String hint) {
    Outcome o =
        apply(
            new AssignJournalPartition(
                o("a"), stream, partition, new Spread("quorum-", 3, "journal", hint)));
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.JournalPlaced.class);
    return (Outcome.JournalPlaced) o;
  }

  @Test
  void aHintedPartitionGoesToAJournalWithAReplicaThereAndItsLeaderFollowsTheMajority() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    journalNode("c", "z3", 1);
    journalNode("d", "z4", 1);
    long q = quorumStream("q", 5);
    // quorum-1 is a, b, c; quorum-2 is d, a, b: only quorum-2 has a replica in z4.
    assertThat(assignHinted(q, 0, "z4").journal()).isEqualTo("quorum-2");
    assertThat(assignHinted(q, 1, "z4").journal()).isEqualTo("quorum-2");
    // z1 is on both: quorum-1 carries no conflicting hint, so it takes it though it is as full.
    assertThat(assignHinted(q, 2, "z1").journal()).isEqualTo("quorum-1");
    // A hint naming a node counts like its zone.
    assertThat(assignHinted(q, 3, "d").journal()).isEqualTo("quorum-2");
    assertThat(m.reader().journalLeaderHint("quorum-2")).contains("z4");
    assertThat(m.reader().journalLeaderHint("quorum-1")).contains("z1");
    assertThat(m.reader().journalPlacementHint(q, 3)).contains("d");
    // No journal has a replica in z9: the hint cannot be met, the fewest partitions win.
    assertThat(assignHinted(q, 4, "z9").journal()).isEqualTo("quorum-1");
    // The hints survive a snapshot (version 14) and leave with their stream.
    byte[] snap = m.snapshot();
    assertThat(snap[5]).as("version").isEqualTo((byte) 14);
    MetaStateMachine back = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(back.snapshot()).isEqualTo(snap);
    assertThat(back.reader().journalLeaderHint("quorum-2")).contains("z4");
    apply(new dev.loam.meta.command.DeleteStream(o("a"), "default", "q"));
    assertThat(m.reader().journalLeaderHint("quorum-2")).isEmpty();
    assertThat(m.snapshot()[5]).isEqualTo((byte) 13);
  }

  @Test
  void tiedHintsLeadByTheSmallerAndABlankHintIsRefused() {
    journalNode("a", "z1", 1);
    journalNode("b", "z2", 1);
    journalNode("c", "z3", 1);
    long q = quorumStream("q", 2);
    assignHinted(q, 0, "z3");
    assignHinted(q, 1, "z2");
    assertThat(m.reader().journalLeaderHint("quorum-1")).contains("z2");
    long q2 = quorumStream("q2", 1);
    Outcome blank =
        apply(new AssignJournalPartition(o("a"), q2, 0, new Spread("quorum-", 3, "journal", " ")));
    assertThat(((Outcome.Rejected) blank).reason()).isEqualTo(RejectReason.INVALID);
    assertThat(((Outcome.Rejected) blank).message()).contains("placement hint");
  }
}
