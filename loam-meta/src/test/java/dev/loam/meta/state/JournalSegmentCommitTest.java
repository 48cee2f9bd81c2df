package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.SwapSegment.SegmentEntry;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A quorum partition's offset index (docs/design/quorum.md "Sealing", decision 39): sealed segments
 * are appended at the index's end by a replica of the assigned journal, a retry is deduplicated,
 * and anything else (an overlap, a hole, another journal, a non-replica, a stale segment) is
 * refused without a change; journals placed with a required endpoint go only to nodes that
 * advertise it.
 */
class JournalSegmentCommitTest {
  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private final Map<String, Long> epochs = new HashMap<>();
  private long index;
  private long now = 10_000_000;

  private Outcome apply(Command c) {
    return m.apply(++index, c);
  }

  private Origin o(String node) {
    return new Origin(node, epochs.get(node), now);
  }

  private void register(String node, String zone) {
    epochs.put(node, 10L);
    assertThat(apply(new RegisterNode(o(node), "http://" + node + ":1", 1, zone)))
        .isInstanceOf(Outcome.NodeRegistered.class);
  }

  private long quorumStream(String name, DurabilityClass d) {
    Outcome out =
        apply(
            new CreateStream(
                o("a"),
                "default",
                name,
                new StreamConfig(1, d, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    return ((Outcome.StreamCreated) out).stream().id();
  }

  private CommitJournalSegment commit(
      String node, String journal, long stream, long from, long to, String key) {
    return new CommitJournalSegment(
        o(node),
        journal,
        stream,
        0,
        from,
        to,
        key,
        now,
        1000,
        List.of(new SegmentEntry((int) (to - from), 100, 500, 42)));
  }

  private static RejectReason refused(Outcome o) {
    assertThat(o).as(o.toString()).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) o).reason();
  }

  private long setUp() {
    for (String n : List.of("a", "b", "c", "d")) {
      register(n, "z-" + n);
    }
    apply(new PlaceJournal(o("a"), "j1", 3));
    long s = quorumStream("q", DurabilityClass.QUORUM);
    apply(new AssignJournalPartition(o("a"), s, 0));
    return s;
  }

  @Test
  void segmentsAppendAtTheIndexEndAndRetriesAreDeduplicated() {
    long s = setUp();
    List<String> replicas = m.reader().journalReplicas("j1").orElseThrow();
    String r = replicas.get(0);
    assertThat(apply(commit(r, "j1", s, 0, 10, "seg/c/1/0/0-A.seg")))
        .isEqualTo(new Outcome.SegmentSwapped(false, 0));
    // Any replica may commit the next one: the content is the journal's committed tail.
    assertThat(apply(commit(replicas.get(1), "j1", s, 10, 25, "seg/c/1/0/10-B.seg")))
        .isEqualTo(new Outcome.SegmentSwapped(false, 0));
    assertThat(m.reader().partition(s, 0).orElseThrow().highWatermark()).isEqualTo(25);
    assertThat(m.reader().indexEntries(s, 0, 0, 10))
        .containsExactly(
            new IndexEntry(0, 10, "seg/c/1/0/0-A.seg", 100, 500, 42),
            new IndexEntry(10, 15, "seg/c/1/0/10-B.seg", 100, 500, 42));
    // A retry after an unknown outcome: already in place, nothing changes.
    assertThat(apply(commit(r, "j1", s, 10, 25, "seg/c/1/0/10-B.seg")))
        .isEqualTo(new Outcome.SegmentSwapped(true, 0));
    // Another attempt at a committed range (a deposed leader's, under its own key): refused.
    assertThat(refused(apply(commit(r, "j1", s, 10, 25, "seg/c/1/0/10-C.seg"))))
        .isEqualTo(RejectReason.CONFLICT);
    // A hole after the index's end: refused.
    assertThat(refused(apply(commit(r, "j1", s, 30, 40, "seg/c/1/0/30-D.seg"))))
        .isEqualTo(RejectReason.CONFLICT);
    // The same object twice: refused.
    assertThat(refused(apply(commit(r, "j1", s, 25, 35, "seg/c/1/0/10-B.seg"))))
        .isEqualTo(RejectReason.CONFLICT);
    assertThat(m.reader().partition(s, 0).orElseThrow().highWatermark()).isEqualTo(25);
  }

  @Test
  void onlyAReplicaOfTheAssignedJournalCommits() {
    long s = setUp();
    List<String> replicas = m.reader().journalReplicas("j1").orElseThrow();
    String outsider =
        List.of("a", "b", "c", "d").stream().filter(n -> !replicas.contains(n)).findFirst().get();
    assertThat(refused(apply(commit(outsider, "j1", s, 0, 10, "seg/k1.seg"))))
        .isEqualTo(RejectReason.NOT_OWNER);
    apply(new PlaceJournal(o("a"), "j2", 3));
    assertThat(refused(apply(commit(replicas.get(0), "j2", s, 0, 10, "seg/k1.seg"))))
        .isEqualTo(RejectReason.NOT_OWNER);
    // A standard stream's index grows only through the WAL.
    long std = quorumStream("std", DurabilityClass.STANDARD);
    assertThat(refused(apply(commit(replicas.get(0), "j1", std, 0, 10, "seg/k1.seg"))))
        .isEqualTo(RejectReason.INVALID);
    // Entries that do not hold the range's records, or lie outside the segment.
    assertThat(
            refused(
                apply(
                    new CommitJournalSegment(
                        o(replicas.get(0)),
                        "j1",
                        s,
                        0,
                        0,
                        10,
                        "seg/k1.seg",
                        now,
                        1000,
                        List.of(new SegmentEntry(9, 100, 500, 42))))))
        .isEqualTo(RejectReason.INVALID);
    assertThat(
            refused(
                apply(
                    new CommitJournalSegment(
                        o(replicas.get(0)),
                        "j1",
                        s,
                        0,
                        0,
                        10,
                        "seg/k1.seg",
                        now,
                        400,
                        List.of(new SegmentEntry(10, 100, 500, 42))))))
        .isEqualTo(RejectReason.INVALID);
    // A segment older than the stale-commit window may be deleted by GC already.
    long segmentTime = now;
    now += MetaSettings.defaults().staleCommitAfter().toMillis() + 1;
    CommitJournalSegment stale =
        new CommitJournalSegment(
            o(replicas.get(0)),
            "j1",
            s,
            0,
            0,
            10,
            "seg/k1.seg",
            segmentTime,
            1000,
            List.of(new SegmentEntry(10, 100, 500, 42)));
    assertThat(refused(apply(stale))).isEqualTo(RejectReason.STALE_COMMIT);
    assertThat(m.reader().indexEntries(s, 0, 0, 10)).isEmpty();
  }

  @Test
  void aJournalWithARequiredEndpointIsPlacedOnlyOnNodesAdvertisingIt() {
    for (String n : List.of("a", "b", "c", "d")) {
      register(n, "z-" + n);
    }
    for (String n : List.of("a", "c", "d")) {
      assertThat(apply(new SetNodeEndpoint(o(n), "journal", n + ":7000")))
          .isNotInstanceOf(Outcome.Rejected.class);
    }
    // Without the requirement, b (no journal port) would be the second pick: least loaded, by id.
    Outcome.JournalPlaced p =
        (Outcome.JournalPlaced) apply(new PlaceJournal(o("a"), "j1", 3, "journal"));
    assertThat(p.replicas()).containsExactlyInAnyOrder("a", "c", "d");
    // Too few nodes advertise it for a second 4-replica journal.
    Outcome.Rejected r = (Outcome.Rejected) apply(new PlaceJournal(o("a"), "j2", 4, "journal"));
    assertThat(r.reason()).isEqualTo(RejectReason.INVALID);
    assertThat(r.message()).contains("liveNodesWithEndpoint=journal", "count=3");
    assertThat(refused(apply(new PlaceJournal(o("a"), "j3", 1, ""))))
        .isEqualTo(RejectReason.INVALID);
    // The first encoding's rule is unchanged: any live node with slots.
    assertThat(((Outcome.JournalPlaced) apply(new PlaceJournal(o("a"), "j4", 4))).replicas())
        .contains("b");
  }
}
