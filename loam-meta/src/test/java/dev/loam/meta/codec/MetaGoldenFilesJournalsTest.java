package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of quorum-journal placement (STYLE.md §3): command tags 46–47, outcome tag 31
 * and snapshot version 13. Decoded forever; a failure is a compatibility break, never a reason to
 * regenerate.
 */
class MetaGoldenFilesJournalsTest {
  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesJournals.COMMANDS_V1_JOURNALS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(46, 47);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesJournals.commandsJournals());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    // Tag 46 after the origin: journal string (i32 length + UTF-8), replicas u8.
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    b.position(2 + 4 + "node-a".length() + 8 + 8);
    assertThat(b.getInt()).isEqualTo(2);
    assertThat((char) b.get()).isEqualTo('j');
    assertThat((char) b.get()).isEqualTo('1');
    assertThat(b.get()).as("replicas").isEqualTo((byte) 3);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesJournals.OUTCOMES_V1_JOURNALS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(31, 31);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesJournals.outcomesJournals());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void snapshotV13RestoresThePlacementAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesJournals.SNAPSHOT_V13);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 13);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesJournals.snapshotV13Commands())
                .snapshot())
        .isEqualTo(bytes);
    assertThat(m.reader().journalOf(4L, 0)).contains("j1");
    assertThat(m.reader().journalOf(4L, 1)).contains("j1");
    assertThat(m.reader().journalReplicas("j1")).hasValueSatisfying(r -> assertThat(r).hasSize(2));
  }
}
