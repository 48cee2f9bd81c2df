package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of arrow stream schemas (STYLE.md §3): command tags 44–45 and outcome tag 30
 * (still format version 1), and snapshot version 12. Decoded forever; a failure is a compatibility
 * break, never a reason to regenerate.
 */
class MetaGoldenFilesSchemasTest {
  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesSchemas.COMMANDS_V1_SCHEMAS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(44, 45);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesSchemas.commandsSchemas());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    // AddStreamSchema: origin, namespace, name, expectedVersions, schema text.
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    b.position(2);
    string(b);
    b.getLong();
    b.getLong();
    assertThat(string(b)).isEqualTo("analytics");
    assertThat(string(b)).isEqualTo("metrics");
    assertThat(b.getInt()).as("expectedVersions").isEqualTo(1);
    assertThat(string(b)).isEqualTo(MetaGoldenFixturesSchemas.V2);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesSchemas.OUTCOMES_V1_SCHEMAS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(30);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesSchemas.outcomesSchemas());
    assertThat(OutcomeCodec.encode(decoded.get(0))).isEqualTo(frames.get(0));
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    b.position(2);
    assertThat(b.getLong()).isEqualTo(4L);
    assertThat(b.getInt()).isEqualTo(2);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void snapshotV12RestoresTheSchemasAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesSchemas.SNAPSHOT_V12);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 12);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesSchemas.snapshotV12Commands()).snapshot())
        .isEqualTo(bytes);
    assertThat(m.reader().streamSchemas(4L))
        .containsExactly(MetaGoldenFixturesSchemas.V1, MetaGoldenFixturesSchemas.V2);
    assertThat(m.reader().streamSchemas(5L)).containsExactly(MetaGoldenFixturesSchemas.V1);
    assertThat(m.reader().streamSchemas(1L)).isEmpty();
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
