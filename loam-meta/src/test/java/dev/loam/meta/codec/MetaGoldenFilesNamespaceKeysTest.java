package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFixturesNamespaceKeys.KEY_1;
import static dev.loam.meta.codec.MetaGoldenFixturesNamespaceKeys.KEY_2;
import static dev.loam.meta.codec.MetaGoldenFixturesNamespaceKeys.KEY_3;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the namespace keys (STYLE.md §3): command tags 38–39, outcome tag 27 and
 * snapshot version 10. Decoded forever; a failure is a compatibility break, never a reason to
 * regenerate.
 */
class MetaGoldenFilesNamespaceKeysTest {

  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(
            golden(MetaGoldenFixturesNamespaceKeys.COMMANDS_V1_NAMESPACE_KEYS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(38, 38, 39);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesNamespaceKeys.commandsNamespaceKeys());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    b.position(2);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    b.position(b.position() + 16);
    assertThat(string(b)).as("namespace").isEqualTo("analytics");
    assertThat(string(b)).as("keyUlid").isEqualTo(KEY_1);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(
            golden(MetaGoldenFixturesNamespaceKeys.OUTCOMES_V1_NAMESPACE_KEYS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(27, 27, 27);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesNamespaceKeys.outcomesNamespaceKeys());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    b.position(2);
    assertThat(string(b)).isEqualTo("analytics");
    assertThat(b.getInt()).as("keys.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo(KEY_1);
    assertThat(string(b)).isEqualTo(KEY_2);
    assertThat(b.get()).as("destroyed").isZero();
    assertThat(b.get()).as("changed").isZero();
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void snapshotV10RestoresTheKeysAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesNamespaceKeys.SNAPSHOT_V10);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 10);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesNamespaceKeys.snapshotV10Commands())
                .snapshot())
        .isEqualTo(bytes);
    assertThat(m.reader().namespaceKeys("analytics"))
        .contains(new NamespaceKeys("analytics", List.of(KEY_1, KEY_2), false));
    assertThat(m.reader().namespaceKeys("vault"))
        .contains(new NamespaceKeys("vault", List.of(KEY_3), true));
    assertThat(m.reader().namespaceKeys("default")).isEmpty();

    // The section is last before the trailer, after the empty ledger section.
    int section = 4 + (4 + 9 + 4 + 2 * 30 + 1) + (4 + 5 + 4 + 30 + 1);
    ByteBuffer b = ByteBuffer.wrap(bytes, bytes.length - 4 - section - 4, section + 4);
    assertThat(b.getInt()).as("ledger.count").isZero();
    assertThat(b.getInt()).as("namespaceKeys.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo("analytics");
    assertThat(b.getInt()).isEqualTo(2);
    assertThat(string(b)).isEqualTo(KEY_1);
    assertThat(string(b)).isEqualTo(KEY_2);
    assertThat(b.get()).as("analytics destroyed").isZero();
    assertThat(string(b)).isEqualTo("vault");
    assertThat(b.getInt()).isEqualTo(1);
    assertThat(string(b)).isEqualTo(KEY_3);
    assertThat(b.get()).as("vault destroyed").isEqualTo((byte) 1);

    // A destroyed namespace never gets a key again.
    Outcome o =
        m.apply(
            m.appliedIndex() + 1,
            new AddNamespaceKey(
                MetaGoldenFilesWriter.originA(12_000), "vault", "01J0GXQ5H7P02Y3Q6R8S9V1W2X"));
    assertThat(o).isInstanceOf(Outcome.Rejected.class);
    assertThat(((Outcome.Rejected) o).reason()).isEqualTo(Outcome.RejectReason.CONFLICT);
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
