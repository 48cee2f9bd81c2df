package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.GroupPartition;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.TransferStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The consumer-group rules of the state machine (docs/design/consumer-groups.md): generations,
 * commits fenced by coordinator epoch and generation, all-or-nothing commits, deletes, what
 * deleting streams and namespaces drops, and the version 8 snapshot section.
 */
class GroupTableTest {
  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private long index;
  private long now = 1_000_000;
  private long topic;
  private long coordinator;

  private Outcome apply(Command c) {
    now += 10;
    return m.apply(++index, c);
  }

  private Origin a() {
    return new Origin("a", 10, now);
  }

  private Origin b() {
    return new Origin("b", 20, now);
  }

  private static RejectReason reason(Outcome o) {
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) o).reason();
  }

  /** Nodes a and b, topic default/orders (3 partitions), and the group's coordinator stream. */
  private void setUp(String group) {
    apply(new RegisterNode(a(), "a:1", 1, null));
    apply(new RegisterNode(b(), "b:1", 1, null));
    topic =
        ((Outcome.StreamCreated)
                apply(new CreateStream(a(), "default", "orders", StreamConfig.standard(3))))
            .stream().id();
    apply(new CreateNamespace(a(), GroupInfo.COORDINATOR_NAMESPACE));
    coordinator = coordinatorOf("default", group);
  }

  private long coordinatorOf(String ns, String group) {
    return ((Outcome.StreamCreated)
            apply(
                new CreateStream(
                    a(),
                    GroupInfo.COORDINATOR_NAMESPACE,
                    GroupInfo.coordinatorStreamName(ns, group),
                    StreamConfig.standard(1))))
        .stream().id();
  }

  /** Opens the coordinator stream on a; returns the coordinator epoch. */
  private long openOnA() {
    apply(new PlaceStream(a(), coordinator));
    Outcome o = apply(new OpenStream(a(), coordinator));
    return ((Outcome.OwnershipChanged) o).ownership().streamEpoch();
  }

  private Outcome fenced(long epoch, Command inner) {
    return apply(new OwnerFenced(coordinator, epoch, inner));
  }

  private CommitGroupOffsets commit(Origin o, int generation, GroupOffset... offsets) {
    return new CommitGroupOffsets(o, coordinator, "default", "g", generation, List.of(offsets));
  }

  private GroupInfo group() {
    return m.reader().group("default", "g").orElseThrow();
  }

  @Test
  void generationsOnlyGoUpAndCommitsNeedTheCurrentOne() {
    setUp("g");
    long epoch = openOnA();
    assertThat(fenced(epoch, new AdvanceGroupGeneration(a(), coordinator, "default", "g", 1)))
        .isEqualTo(new Outcome.GroupChanged("default", "g", 1, 0));
    assertThat(fenced(epoch, commit(a(), 1, new GroupOffset(topic, 0, 5, 0, "x"))))
        .isEqualTo(new Outcome.GroupChanged("default", "g", 1, 1));
    assertThat(fenced(epoch, new AdvanceGroupGeneration(a(), coordinator, "default", "g", 3)))
        .isInstanceOf(Outcome.GroupChanged.class);
    // The same or an older generation again: refused, the stored one stays.
    assertThat(
            reason(fenced(epoch, new AdvanceGroupGeneration(a(), coordinator, "default", "g", 3))))
        .isEqualTo(RejectReason.FENCED);
    // A member of generation 1 commits after the rebalance to 3: fenced, nothing changes.
    Outcome stale = fenced(epoch, commit(a(), 1, new GroupOffset(topic, 0, 9, 0, "")));
    assertThat(reason(stale)).isEqualTo(RejectReason.FENCED);
    assertThat(((Outcome.Rejected) stale).message())
        .contains("generation=1")
        .contains("currentGeneration=3");
    assertThat(group().offsets()).containsExactly(new GroupOffset(topic, 0, 5, 0, "x"));
    // Generation -1 (a group without members) is accepted; the coordinator vouches for it.
    assertThat(fenced(epoch, commit(a(), -1, new GroupOffset(topic, 1, 7, -1, ""))))
        .isEqualTo(new Outcome.GroupChanged("default", "g", 3, 2));
    assertThat(reason(fenced(epoch, commit(a(), 0, new GroupOffset(topic, 1, 7, -1, "")))))
        .isEqualTo(RejectReason.INVALID);
  }

  @Test
  void aCoordinatorThatLostTheGroupCommitsNothing() {
    setUp("g");
    long epoch = openOnA();
    fenced(epoch, new AdvanceGroupGeneration(a(), coordinator, "default", "g", 1));
    // The group moves to b: its open bumps the coordinator epoch.
    apply(new TransferStream(a(), coordinator, epoch, "b"));
    long bEpoch =
        ((Outcome.OwnershipChanged) apply(new OpenStream(b(), coordinator)))
            .ownership()
            .streamEpoch();
    assertThat(bEpoch).isGreaterThan(epoch);
    // a, still believing it coordinates at generation 1, commits: NOT_OWNER.
    assertThat(reason(fenced(epoch, commit(a(), 1, new GroupOffset(topic, 0, 5, 0, "")))))
        .isEqualTo(RejectReason.NOT_OWNER);
    // Without the wrapper too: b holds the stream open.
    assertThat(reason(apply(commit(a(), 1, new GroupOffset(topic, 0, 5, 0, "")))))
        .isEqualTo(RejectReason.NOT_OWNER);
    // b at its epoch with a new generation commits.
    assertThat(fenced(bEpoch, new AdvanceGroupGeneration(b(), coordinator, "default", "g", 2)))
        .isInstanceOf(Outcome.GroupChanged.class);
    assertThat(fenced(bEpoch, commit(b(), 2, new GroupOffset(topic, 0, 6, 0, ""))))
        .isInstanceOf(Outcome.GroupChanged.class);
    assertThat(group().offsets()).containsExactly(new GroupOffset(topic, 0, 6, 0, ""));
  }

  @Test
  void aCommitIsAllOrNothingAndValidated() {
    setUp("g");
    long epoch = openOnA();
    Outcome missing =
        fenced(
            epoch,
            commit(
                a(), -1, new GroupOffset(topic, 0, 5, 0, ""), new GroupOffset(topic, 3, 1, 0, "")));
    assertThat(reason(missing)).isEqualTo(RejectReason.NOT_FOUND);
    assertThat(((Outcome.Rejected) missing).message()).contains("partition=3");
    assertThat(m.reader().group("default", "g")).isEmpty();
    assertThat(reason(fenced(epoch, commit(a(), -1, new GroupOffset(topic, 0, -1, 0, "")))))
        .isEqualTo(RejectReason.INVALID);
    String tooLong = "m".repeat(GroupOffset.MAX_METADATA_LENGTH + 1);
    assertThat(reason(fenced(epoch, commit(a(), -1, new GroupOffset(topic, 0, 1, 0, tooLong)))))
        .isEqualTo(RejectReason.INVALID);
    // A stream of another namespace is not the group's.
    apply(new CreateNamespace(a(), "other"));
    long foreign =
        ((Outcome.StreamCreated)
                apply(new CreateStream(a(), "other", "x", StreamConfig.standard(1))))
            .stream().id();
    assertThat(reason(fenced(epoch, commit(a(), -1, new GroupOffset(foreign, 0, 1, 0, "")))))
        .isEqualTo(RejectReason.NOT_FOUND);
    // The command names another group's coordinator stream: INVALID, whatever the epoch.
    assertThat(
            reason(
                apply(
                    new CommitGroupOffsets(
                        a(),
                        topic,
                        "default",
                        "g",
                        -1,
                        List.of(new GroupOffset(topic, 0, 1, 0, ""))))))
        .isEqualTo(RejectReason.INVALID);
    // The last entry of a repeated partition wins.
    fenced(
        epoch,
        commit(a(), -1, new GroupOffset(topic, 0, 1, 0, ""), new GroupOffset(topic, 0, 2, 0, "")));
    assertThat(group().offsets()).containsExactly(new GroupOffset(topic, 0, 2, 0, ""));
  }

  @Test
  void deletesAndWhatDeletingStreamsAndNamespacesDrops() {
    setUp("g");
    long epoch = openOnA();
    fenced(
        epoch,
        commit(a(), -1, new GroupOffset(topic, 0, 1, 0, ""), new GroupOffset(topic, 1, 2, 0, "")));
    assertThat(
            fenced(
                epoch,
                new DeleteGroupOffsets(
                    a(),
                    coordinator,
                    "default",
                    "g",
                    false,
                    List.of(new GroupPartition(topic, 1)))))
        .isEqualTo(new Outcome.GroupChanged("default", "g", 0, 1));
    assertThat(
            fenced(
                epoch, new DeleteGroupOffsets(a(), coordinator, "default", "g", true, List.of())))
        .isEqualTo(new Outcome.GroupChanged("default", "g", 0, 0));
    assertThat(m.reader().group("default", "g")).isEmpty();
    // Deleting what is not there succeeds.
    assertThat(
            fenced(
                epoch, new DeleteGroupOffsets(a(), coordinator, "default", "g", true, List.of())))
        .isInstanceOf(Outcome.GroupChanged.class);

    fenced(epoch, commit(a(), -1, new GroupOffset(topic, 0, 1, 0, "")));
    apply(new DeleteStream(a(), "default", "orders"));
    assertThat(group().offsets()).isEmpty();

    apply(new CreateNamespace(a(), "team"));
    long teamCoordinator = coordinatorOf("team", "g");
    apply(new AdvanceGroupGeneration(a(), teamCoordinator, "team", "g", 1));
    assertThat(m.reader().groups("team")).hasSize(1);
    apply(new DeleteNamespace(a(), "team"));
    assertThat(m.reader().groups("team")).isEmpty();
  }

  @Test
  void snapshotVersion8RoundTripsAndOnlyWhileAGroupHasARecord() {
    setUp("g");
    long epoch = openOnA();
    int before = SnapshotFormat.versionFor(m);
    assertThat(before).isLessThan(8);
    fenced(epoch, new AdvanceGroupGeneration(a(), coordinator, "default", "g", 4));
    fenced(
        epoch,
        commit(a(), 4, new GroupOffset(topic, 2, 9, 3, "é"), new GroupOffset(topic, 0, 1, -1, "")));
    byte[] snap = m.snapshot();
    assertThat(SnapshotFormat.versionFor(m)).isEqualTo(8);
    MetaStateMachine restored = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(restored.reader().group("default", "g")).contains(group());
    assertThat(restored.snapshot()).isEqualTo(snap);
    // The restored state keeps fencing: generation 3 is stale.
    Outcome stale =
        restored.apply(
            ++index,
            new OwnerFenced(
                coordinator, epoch, commit(a(), 3, new GroupOffset(topic, 0, 2, 0, ""))));
    assertThat(reason(stale)).isEqualTo(RejectReason.FENCED);

    // Deleting the group's record takes the snapshot back to the older version.
    fenced(epoch, new DeleteGroupOffsets(a(), coordinator, "default", "g", true, List.of()));
    assertThat(SnapshotFormat.versionFor(m)).isEqualTo(before);
  }

  @Test
  void restoreRefusesDamageInTheGroupsSection() {
    setUp("g");
    long epoch = openOnA();
    fenced(epoch, commit(a(), -1, new GroupOffset(topic, 0, 1, 0, "")));
    byte[] snap = m.snapshot();
    for (int i = 0; i < snap.length; i++) {
      byte[] damaged = snap.clone();
      damaged[i] ^= 0x01;
      assertThatThrownBy(() -> MetaStateMachine.restore(damaged, MetaSettings.defaults()))
          .as("byte %d", i)
          .isInstanceOf(CorruptionException.class);
    }
    for (int n = 0; n < snap.length; n++) {
      byte[] cut = java.util.Arrays.copyOf(snap, n);
      assertThatThrownBy(() -> MetaStateMachine.restore(cut, MetaSettings.defaults()))
          .isInstanceOf(CorruptionException.class);
    }
  }
}
