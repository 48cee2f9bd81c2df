package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFixturesEvents.key;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the CloudEvents dedupe ledger (STYLE.md §3): command tags 31–34 and outcome
 * tags 22–24 (still format version 1), and snapshot version 9. Decoded forever; a failure is a
 * compatibility break, never a reason to regenerate.
 */
class MetaGoldenFilesEventsTest {
  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesEvents.COMMANDS_V1_EVENTS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(31, 32, 33, 34);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesEvents.commandsEvents());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void claimEventsIsTheOriginStreamPendingThenRawKeys() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesEvents.COMMANDS_V1_EVENTS));
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 31);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(MetaGoldenFilesWriter.EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(1_780_000_000_988L);
    assertThat(b.getLong()).as("streamId").isEqualTo(1L);
    assertThat(b.getLong()).as("pendingMillis").isEqualTo(120_000L);
    assertThat(b.getInt()).as("keys.count").isEqualTo(2);
    byte[] k = new byte[32];
    b.get(k);
    assertThat(k).isEqualTo(key(1).bytes());
    b.get(k);
    assertThat(k).isEqualTo(key(0xf0).bytes());
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesEvents.OUTCOMES_V1_EVENTS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(22, 23, 24);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesEvents.outcomesEvents());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    // EventsClaimed: claimId, expiresAtMillis, count, then status 1 | 2 partition offset | 3 expiry
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    b.position(2);
    assertThat(b.getLong()).isEqualTo(77L);
    assertThat(b.getLong()).isEqualTo(1_780_000_120_988L);
    assertThat(b.getInt()).isEqualTo(3);
    assertThat(b.get()).isEqualTo((byte) 1);
    assertThat(b.get()).isEqualTo((byte) 2);
    assertThat(b.getInt()).isEqualTo(2);
    assertThat(b.getLong()).isEqualTo(5L);
    assertThat(b.get()).isEqualTo((byte) 3);
    assertThat(b.getLong()).isEqualTo(1_780_000_100_000L);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void snapshotV9RestoresTheLedgerAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesEvents.SNAPSHOT_V9);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 9);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesEvents.snapshotV9Commands()).snapshot())
        .isEqualTo(bytes);

    // The ledger section is last before the trailer: 2 done entries of stream 1 (61 bytes each)
    // and 1 pending entry of stream 2 (57 bytes), after an empty groups section.
    int ledger = bytes.length - 4 - (4 + 61 + 61 + 57);
    ByteBuffer b = ByteBuffer.wrap(bytes, ledger - 4, bytes.length - ledger);
    assertThat(b.getInt()).as("groups.count").isZero();
    assertThat(b.getInt()).as("ledger.count").isEqualTo(3);
    assertThat(b.getLong()).as("streamId").isEqualTo(1L);
    byte[] k = new byte[32];
    b.get(k);
    assertThat(k).isEqualTo(key(1).bytes());
    assertThat(b.get()).as("state done").isEqualTo((byte) 2);
    long window = b.getLong();
    assertThat(b.getInt()).as("partition").isEqualTo(2);
    assertThat(b.getLong()).as("offset").isEqualTo(5L);
    b.position(b.position() + 61);
    assertThat(b.getLong()).as("streamId").isEqualTo(2L);
    b.get(k);
    assertThat(k).isEqualTo(key(4).bytes());
    assertThat(b.get()).as("state pending").isEqualTo((byte) 1);
    long pendingUntil = b.getLong();
    assertThat(window).as("the window outlasts the pending claim").isGreaterThan(pendingUntil);
    assertThat(b.getLong()).as("claimId").isEqualTo(MetaGoldenFixturesEvents.firstClaimIndex() + 3);

    // On the restored state: key 1 is a duplicate with its first offset, key 4 in flight, key 3
    // (released) free again.
    Origin a = MetaGoldenFilesWriter.originA(11_000);
    Outcome o =
        m.apply(m.appliedIndex() + 1, new ClaimEvents(a, 1L, 120_000L, List.of(key(1), key(3))));
    assertThat(o)
        .isEqualTo(
            new Outcome.EventsClaimed(
                m.appliedIndex(),
                a.stampMillis() + 120_000L,
                List.of(Outcome.EventClaim.duplicate(2, 5L), Outcome.EventClaim.claimed())));
    Outcome o2 = m.apply(m.appliedIndex() + 1, new ClaimEvents(a, 2L, 120_000L, List.of(key(4))));
    assertThat(((Outcome.EventsClaimed) o2).claims())
        .containsExactly(Outcome.EventClaim.inFlight(pendingUntil));
    assertThat(Arrays.copyOfRange(bytes, 0, 4))
        .isEqualTo("LMSS".getBytes(StandardCharsets.US_ASCII));
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
