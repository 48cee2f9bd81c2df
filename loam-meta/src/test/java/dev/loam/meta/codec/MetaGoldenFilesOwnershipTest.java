package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_B;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_C;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_D;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamConfig.CleanupPolicy;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.StreamOwnership.State;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import dev.loam.wal.DurabilityClass;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of node liveness and stream ownership (STYLE.md §3): command tags 15..23,
 * outcome tags 15..16 and reject reason 11 (still format version 1), and snapshot version 4.
 * Decoded forever; a failure is a compatibility break, never a reason to regenerate.
 */
class MetaGoldenFilesOwnershipTest {

  @Test
  void commandsV1OwnershipDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.COMMANDS_V1_OWNERSHIP);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames)
        .extracting(f -> (int) f[1])
        .containsExactly(15, 15, 16, 16, 17, 18, 18, 19, 20, 21, 22, 23, 23, 23);

    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.commandsOwnership());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.commandsOwnership().stream().map(CommandCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void ownerFencedCarriesAWholeInnerEncodingAndNoOriginOfItsOwn() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFilesWriter.COMMANDS_V1_OWNERSHIP));
    byte[] f = frames.get(11);
    ByteBuffer b = ByteBuffer.wrap(f);
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 23);
    assertThat(b.getLong()).as("streamId").isEqualTo(42L);
    assertThat(b.getLong()).as("streamEpoch").isEqualTo(7L);
    int innerLength = b.getInt();
    assertThat(innerLength).isEqualTo(f.length - 22);
    byte[] inner = Arrays.copyOfRange(f, 22, f.length);
    assertThat(inner[0]).as("inner version").isEqualTo((byte) 1);
    assertThat(inner[1]).as("inner tag: TrimPartition").isEqualTo((byte) 8);
    TrimPartition trim = (TrimPartition) CommandCodec.decode(inner);
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_901L);
    assertThat(trim).isEqualTo(new TrimPartition(a, 42L, 3, 1_014L, TrimPartition.Reason.SIZE));
    OwnerFenced wrapped = (OwnerFenced) CommandCodec.decode(f);
    assertThat(wrapped.origin()).isEqualTo(a);

    OwnerFenced update = (OwnerFenced) CommandCodec.decode(frames.get(13));
    assertThat(update.streamEpoch()).isEqualTo(Long.MAX_VALUE);
    assertThat(((UpdateStreamConfig) update.inner()).retentionBytes()).isEqualTo(1_048_576L);
  }

  @Test
  void outcomesV1OwnershipDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.OUTCOMES_V1_OWNERSHIP);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(1, 15, 15, 16, 16, 16, 16, 16);
    assertThat((int) frames.get(0)[2]).as("NOT_OWNER").isEqualTo(11);
    // StreamOwnership's state byte follows the i64 stream id: 0 UNPLACED .. 3 CLOSED.
    assertThat(frames.subList(3, 8)).extracting(f -> (int) f[10]).containsExactly(0, 1, 2, 2, 3);

    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.outcomesOwnership());
    assertThat(((Outcome.NodeStatusChanged) decoded.get(2)).streamsClosed()).isEqualTo(70_000);
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.outcomesOwnership().stream().map(OutcomeCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void snapshotV4RestoresLivenessAndOwnershipAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V4);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 4);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(31L);
    assertThat(r.clockMillis()).isEqualTo(START + 11_500);

    // Liveness: node-a renewed at 9 300; node-b never renewed (its epoch); c expired, d left.
    assertThat(r.nodeStatus("node-a"))
        .contains(new NodeStatus("node-a", EPOCH_A, true, START + 9_300));
    assertThat(r.nodeStatus("node-b")).contains(new NodeStatus("node-b", EPOCH_B, true, EPOCH_B));
    assertThat(r.nodeStatus("node-c")).contains(new NodeStatus("node-c", EPOCH_C, false, EPOCH_C));
    assertThat(r.nodeStatus("node-d")).contains(new NodeStatus("node-d", EPOCH_D, false, EPOCH_D));
    assertThat(r.node("node-b"))
        .contains(new NodeInfo("node-b", EPOCH_B, "10.0.0.2:9092", 3, "az-2"));

    // Ownership in every state that is stored.
    assertThat(r.ownership(1L))
        .contains(new StreamOwnership(1L, State.OPEN, "node-a", EPOCH_A, 1L, "node-b"));
    assertThat(r.ownership(2L))
        .contains(new StreamOwnership(2L, State.PLACED, "node-b", EPOCH_B, 0L, null));
    assertThat(r.ownership(3L)).contains(new StreamOwnership(3L, State.CLOSED, null, 0L, 1L, null));
    assertThat(r.assignedStreams("node-a")).isEqualTo(1);
    assertThat(r.assignedStreams("node-b")).isEqualTo(1);
    assertThat(r.ownershipsInvolving("node-b"))
        .extracting(StreamOwnership::streamId)
        .containsExactlyInAnyOrder(1L, 2L);
    // The owner-fenced config change landed.
    assertThat(r.stream("default", "events").orElseThrow().config())
        .isEqualTo(
            new StreamConfig(
                3, DurabilityClass.STANDARD, 2_000L, 1_048_576L, CleanupPolicy.DELETE));

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(MetaGoldenFilesWriter.state(MetaGoldenFilesWriter.snapshotV4Commands()).snapshot())
        .isEqualTo(bytes);

    // The restored ownership still fences: a step under the old stream epoch after node-b opens
    // (completing the transfer) is refused NOT_OWNER.
    Origin b = new Origin("node-b", EPOCH_B, START + 12_000);
    Outcome opened = m.apply(32, new dev.loam.meta.command.OpenStream(b, 1L));
    assertThat(opened)
        .isEqualTo(
            new Outcome.OwnershipChanged(
                new StreamOwnership(1L, State.OPEN, "node-b", EPOCH_B, 2L, null), true));
    Outcome stale =
        m.apply(
            33,
            new OwnerFenced(
                1L,
                1L,
                new UpdateStreamConfig(
                    MetaGoldenFilesWriter.originA(12_100), "default", "events", 1L, null, null)));
    assertThat(stale).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) stale).reason()).isEqualTo(Outcome.RejectReason.NOT_OWNER);
  }
}
