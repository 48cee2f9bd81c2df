package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.StreamOwnership.State;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.wal.DurabilityClass;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ownership rules of the state machine (ownership-and-routing.txt), one by one. */
class OwnershipTest {
  private final MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
  private final Map<String, Long> epochs = new HashMap<>();
  private long index;
  private long now = 1_000_000;

  private Outcome apply(Command c) {
    return m.apply(++index, c);
  }

  private Origin o(String node) {
    return new Origin(node, epochs.get(node), now);
  }

  private void register(String node, long epoch, int slots) {
    epochs.put(node, epoch);
    assertThat(apply(new RegisterNode(o(node), "http://" + node + ":1", slots, "z1")))
        .isInstanceOf(Outcome.NodeRegistered.class);
  }

  private long create(String name) {
    Outcome out =
        apply(
            new CreateStream(
                o(epochs.keySet().iterator().next()),
                "default",
                name,
                new StreamConfig(
                    1, DurabilityClass.STANDARD, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    return ((Outcome.StreamCreated) out).stream().id();
  }

  private StreamOwnership own(long id) {
    return m.reader().ownership(id).orElseThrow();
  }

  private static RejectReason reason(Outcome o) {
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    return ((Outcome.Rejected) o).reason();
  }

  private StreamOwnership ok(Outcome o) {
    assertThat(o).isInstanceOf(Outcome.OwnershipChanged.class);
    return ((Outcome.OwnershipChanged) o).ownership();
  }

  @Test
  void placementFollowsSlotsFourToOneToOne() {
    register("a", 10, 4);
    register("b", 10, 1);
    register("c", 10, 1);
    Map<String, Integer> count = new HashMap<>();
    for (int i = 0; i < 60; i++) {
      long id = create("s" + i);
      count.merge(ok(apply(new PlaceStream(o("b"), id))).owner(), 1, Integer::sum);
    }
    assertThat(count).containsEntry("a", 40).containsEntry("b", 10).containsEntry("c", 10);
    assertThat(m.reader().assignedStreams("a")).isEqualTo(40);
  }

  @Test
  void aRacingSecondPlacementIsANoOp() {
    register("a", 10, 1);
    register("b", 10, 1);
    long id = create("s");
    Outcome first = apply(new PlaceStream(o("a"), id));
    Outcome second = apply(new PlaceStream(o("b"), id));
    assertThat(((Outcome.OwnershipChanged) first).changed()).isTrue();
    assertThat(((Outcome.OwnershipChanged) second).changed()).isFalse();
    assertThat(ok(second)).isEqualTo(ok(first));
  }

  @Test
  void slotsChangeShiftsOnlyFuturePlacements() {
    register("a", 10, 1);
    register("b", 10, 1);
    long s1 = create("s1");
    long s2 = create("s2");
    assertThat(ok(apply(new PlaceStream(o("a"), s1))).owner()).isEqualTo("a");
    assertThat(ok(apply(new PlaceStream(o("a"), s2))).owner()).isEqualTo("b");
    assertThat(apply(new SetNodeSlots(o("a"), "b", 0))).isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(own(s2).owner()).isEqualTo("b"); // nothing moved
    for (int i = 0; i < 3; i++) {
      assertThat(ok(apply(new PlaceStream(o("b"), create("n" + i)))).owner()).isEqualTo("a");
    }
    assertThat(reason(apply(new SetNodeSlots(o("a"), "b", -1)))).isEqualTo(RejectReason.INVALID);
    assertThat(reason(apply(new SetNodeSlots(o("a"), "zz", 1)))).isEqualTo(RejectReason.NOT_FOUND);
  }

  @Test
  void openingBumpsTheEpochAndOnlyTheOwnerMayOpenAPlacedStream() {
    register("a", 10, 1);
    register("b", 10, 1);
    long id = create("s");
    assertThat(ok(apply(new PlaceStream(o("a"), id))).owner()).isEqualTo("a");
    assertThat(reason(apply(new OpenStream(o("b"), id)))).isEqualTo(RejectReason.NOT_OWNER);
    StreamOwnership opened = ok(apply(new OpenStream(o("a"), id)));
    assertThat(opened.state()).isEqualTo(State.OPEN);
    assertThat(opened.streamEpoch()).isEqualTo(1);
    // Open again at the same node epoch: idempotent, no bump.
    assertThat(ok(apply(new OpenStream(o("a"), id))).streamEpoch()).isEqualTo(1);
    // The owner restarts (new node epoch): its reopen bumps, fencing the old incarnation.
    register("a", 20, 1);
    StreamOwnership reopened = ok(apply(new OpenStream(o("a"), id)));
    assertThat(reopened.streamEpoch()).isEqualTo(2);
    assertThat(reopened.ownerEpoch()).isEqualTo(20);
  }

  @Test
  void ownerBoundCommandsFromANonOwnerAreRefusedOnceTheStreamIsOwned() {
    register("a", 10, 1);
    register("b", 10, 1);
    long id = create("s");
    UpdateStreamConfig byB = new UpdateStreamConfig(o("b"), "default", "s", 1000L, null, null);
    // Unplaced: no owner, so nobody is a second writer.
    assertThat(apply(byB)).isInstanceOf(Outcome.StreamConfigUpdated.class);
    apply(new PlaceStream(o("a"), id));
    assertThat(reason(apply(byB))).isEqualTo(RejectReason.NOT_OWNER);
    // Placed on a but not opened: a must open first.
    UpdateStreamConfig byA = new UpdateStreamConfig(o("a"), "default", "s", 2000L, null, null);
    assertThat(reason(apply(byA))).isEqualTo(RejectReason.NOT_OWNER);
    apply(new OpenStream(o("a"), id));
    assertThat(apply(byA)).isInstanceOf(Outcome.StreamConfigUpdated.class);
    assertThat(reason(apply(byB))).isEqualTo(RejectReason.NOT_OWNER);
  }

  @Test
  void fencedCommandsNeedTheCurrentStreamEpoch() {
    register("a", 10, 1);
    long id = create("s");
    apply(new OpenStream(o("a"), id));
    UpdateStreamConfig u = new UpdateStreamConfig(o("a"), "default", "s", 1000L, null, null);
    assertThat(apply(new OwnerFenced(id, 1, u))).isInstanceOf(Outcome.StreamConfigUpdated.class);
    StreamOwnership closed = ok(apply(new CloseStream(o("a"), id, 1)));
    assertThat(closed.state()).isEqualTo(State.CLOSED);
    apply(new OpenStream(o("a"), id)); // epoch 2
    assertThat(reason(apply(new OwnerFenced(id, 1, u)))).isEqualTo(RejectReason.NOT_OWNER);
    assertThat(apply(new OwnerFenced(id, 2, u))).isInstanceOf(Outcome.StreamConfigUpdated.class);
    assertThat(reason(apply(new OwnerFenced(id + 1, 2, u)))).isEqualTo(RejectReason.INVALID);
  }

  @Test
  void aNodeThatStopsRenewingIsDeclaredDeadAndItsStreamsClosed() {
    register("a", now, 1);
    register("b", now, 1);
    long id = create("s");
    apply(new OpenStream(o("a"), id));
    now += 3_000;
    apply(new RenewNode(o("b")));
    // Still within the timeout of a's epoch (its start time): refused.
    assertThat(reason(apply(new ExpireNode(o("b"), "a", epochs.get("a"), 5_000))))
        .isEqualTo(RejectReason.CONFLICT);
    assertThat(reason(apply(new ExpireNode(o("b"), "a", epochs.get("a"), 10))))
        .isEqualTo(RejectReason.INVALID);
    now += 3_000;
    Outcome expired = apply(new ExpireNode(o("b"), "a", epochs.get("a"), 5_000));
    assertThat(expired).isInstanceOf(Outcome.NodeStatusChanged.class);
    assertThat(((Outcome.NodeStatusChanged) expired).streamsClosed()).isEqualTo(1);
    assertThat(m.reader().nodeStatus("a").orElseThrow().live()).isFalse();
    assertThat(own(id).state()).isEqualTo(State.CLOSED);
    // The old incarnation's late proposals are refused.
    assertThat(reason(apply(new RenewNode(o("a"))))).isEqualTo(RejectReason.UNKNOWN_NODE);
    assertThat(reason(apply(new CloseStream(o("a"), id, 1)))).isEqualTo(RejectReason.UNKNOWN_NODE);
    // Placement skips the dead node; b revives the stream.
    assertThat(ok(apply(new PlaceStream(o("b"), id))).owner()).isEqualTo("b");
    assertThat(ok(apply(new OpenStream(o("b"), id))).streamEpoch()).isEqualTo(2);
    // a registers again (same epoch: the same process after a pause): alive, owning nothing.
    assertThat(apply(new RegisterNode(o("a"), "http://a:1", 1, "z1")))
        .isInstanceOf(Outcome.NodeRegistered.class);
    assertThat(m.reader().nodeStatus("a").orElseThrow().live()).isTrue();
    assertThat(reason(apply(new CloseStream(o("a"), id, 2)))).isEqualTo(RejectReason.NOT_OWNER);
  }

  @Test
  void aTransferIsPendingUntilTheTargetOpens() {
    register("a", 10, 1);
    register("b", 10, 1);
    long id = create("s");
    apply(new OpenStream(o("a"), id));
    assertThat(reason(apply(new TransferStream(o("b"), id, 1, "b"))))
        .isEqualTo(RejectReason.NOT_OWNER);
    assertThat(reason(apply(new TransferStream(o("a"), id, 1, "zz"))))
        .isEqualTo(RejectReason.NOT_FOUND);
    StreamOwnership pending = ok(apply(new TransferStream(o("a"), id, 1, "b")));
    assertThat(pending.transferTarget()).isEqualTo("b");
    assertThat(pending.owner()).isEqualTo("a");
    StreamOwnership moved = ok(apply(new OpenStream(o("b"), id)));
    assertThat(moved.owner()).isEqualTo("b");
    assertThat(moved.streamEpoch()).isEqualTo(2);
    assertThat(moved.transferTarget()).isNull();
    UpdateStreamConfig u = new UpdateStreamConfig(o("a"), "default", "s", 1000L, null, null);
    assertThat(reason(apply(new OwnerFenced(id, 1, u)))).isEqualTo(RejectReason.NOT_OWNER);
    assertThat(m.reader().assignedStreams("a")).isZero();
    assertThat(m.reader().assignedStreams("b")).isEqualTo(1);
  }

  @Test
  void deregisteringClosesTheLeaversStreams() {
    register("a", 10, 1);
    register("b", 10, 1);
    long id = create("s");
    apply(new OpenStream(o("a"), id));
    Outcome left = apply(new DeregisterNode(o("a")));
    assertThat(((Outcome.NodeStatusChanged) left).streamsClosed()).isEqualTo(1);
    assertThat(own(id).state()).isEqualTo(State.CLOSED);
    assertThat(m.reader().placementChoice()).contains("b");
  }

  @Test
  void snapshotsCarryOwnershipAndRestoreToTheSameBytes() {
    register("a", now, 4);
    register("b", now, 1);
    long s1 = create("s1");
    long s2 = create("s2");
    apply(new OpenStream(o("a"), s1));
    apply(new TransferStream(o("a"), s1, 1, "b"));
    apply(new PlaceStream(o("a"), s2));
    now += 1000;
    apply(new RenewNode(o("b")));
    byte[] snap = m.snapshot();
    assertThat(java.nio.ByteBuffer.wrap(snap).getShort(4)).isEqualTo((short) 4);
    MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(r.snapshot()).isEqualTo(snap);
    assertThat(r.reader().ownership(s1)).isEqualTo(m.reader().ownership(s1));
    assertThat(r.reader().nodeStatus("b")).isEqualTo(m.reader().nodeStatus("b"));
    assertThat(r.reader().assignedStreams("a")).isEqualTo(1); // s2 went to b (0/1 < 1/4)
    assertThat(r.reader().assignedStreams("b")).isEqualTo(1);
  }
}
