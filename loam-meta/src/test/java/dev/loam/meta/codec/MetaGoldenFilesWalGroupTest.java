package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of grouped commits (STYLE.md §3): command tag 35 and outcome tag 25, still
 * format version 1. Decoded forever; a failure is a compatibility break, never a reason to
 * regenerate.
 */
class MetaGoldenFilesWalGroupTest {

  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWalGroup.COMMANDS_V1_WAL_GROUP));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(35, 35);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesWalGroup.commandsWalGroup());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void aGroupIsTheOriginOnceThenEachMemberAsCommitWalsBodyWithoutItsOrigin() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWalGroup.COMMANDS_V1_WAL_GROUP));
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 35);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(MetaGoldenFilesWriter.EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(MetaGoldenFilesWriter.START + 7_000);
    assertThat(b.getInt()).as("members.count").isEqualTo(3);
    // Member 0 is commit1: exactly tag 6's body after its origin.
    byte[] tag6 =
        CommandCodec.encode(MetaGoldenFilesWriter.commit1(MetaGoldenFilesWriter.originA(7_000)));
    int originBytes = 4 + "node-a".length() + 8 + 8;
    int body0 = tag6.length - 2 - originBytes;
    byte[] member0 = new byte[body0];
    b.get(member0);
    assertThat(member0).isEqualTo(java.util.Arrays.copyOfRange(tag6, 2 + originBytes, tag6.length));
    // Member 1: the empty object.
    assertThat(string(b)).as("member1.objectKey").isEqualTo(MetaGoldenFixturesWalGroup.OBJECT_3);
    assertThat(b.getLong())
        .as("member1.objectTimeMillis")
        .isEqualTo(MetaGoldenFilesWriter.START + 6_600);
    assertThat(b.getLong()).as("member1.objectSize").isZero();
    assertThat(b.getInt()).as("member1.chunks.count").isZero();
    // Member 2: one chunk, one idempotent batch.
    assertThat(string(b)).as("member2.objectKey").isEqualTo(MetaGoldenFixturesWalGroup.OBJECT_4);
    assertThat(b.getLong()).isEqualTo(MetaGoldenFilesWriter.START + 6_700);
    assertThat(b.getLong()).isEqualTo(500L);
    assertThat(b.getInt()).as("chunks.count").isEqualTo(1);
    assertThat(b.getLong()).as("streamId").isEqualTo(1L);
    assertThat(b.getInt()).as("partition").isEqualTo(2);
    assertThat(b.getInt()).as("batches.count").isEqualTo(1);
    assertThat(b.getLong()).as("byteOffset").isZero();
    assertThat(b.getInt()).as("byteLength").isEqualTo(200);
    assertThat(b.getInt()).as("recordCount").isEqualTo(5);
    assertThat(b.getLong()).as("maxTimestamp").isEqualTo(MetaGoldenFilesWriter.START + 6_650);
    assertThat(b.getLong()).as("producerId").isEqualTo(8L);
    assertThat(b.getShort()).as("producerEpoch").isEqualTo((short) 2);
    assertThat(b.getInt()).as("baseSequence").isEqualTo(10);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWalGroup.OUTCOMES_V1_WAL_GROUP));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(25, 25);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesWalGroup.outcomesWalGroup());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    b.position(2);
    assertThat(b.getInt()).as("members.count").isEqualTo(3);
    assertThat(b.get()).as("member0.tag").isEqualTo((byte) 6);
  }

  @Test
  void aMemberOutcomeOtherThanRejectedOrCommittedIsCorruption() {
    // version 1, tag 25, one member whose tag is 5 (Deleted).
    byte[] bad = {1, 25, 0, 0, 0, 1, 5, 0, 0, 0, 1, 'x'};
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> OutcomeCodec.decode(bad))
        .isInstanceOf(dev.loam.error.CorruptionException.class)
        .hasMessageContaining("walGroupCommitted.member.tag");
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
