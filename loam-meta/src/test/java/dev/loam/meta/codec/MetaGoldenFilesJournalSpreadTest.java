package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of command tags 53 and 48 and of snapshot version 14 (STYLE.md §3). Decoded
 * forever; a failure is a compatibility break, never a reason to regenerate.
 */
class MetaGoldenFilesJournalSpreadTest {
  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(
            golden(MetaGoldenFixturesJournalSpread.COMMANDS_V1_JOURNAL_SPREAD));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(53, 53);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesJournalSpread.commandsJournalSpread());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void snapshotV14RestoresTheHintsAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesJournalSpread.SNAPSHOT_V14);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 14);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesJournalSpread.snapshotV14Commands())
                .snapshot())
        .isEqualTo(bytes);
    assertThat(m.reader().journals()).containsOnlyKeys("quorum-1", "quorum-2", "quorum-3");
    assertThat(m.reader().journalPlacementHint(4L, 0)).contains("az-1");
    assertThat(m.reader().journalPlacementHint(4L, 1)).isEmpty();
    String hinted = m.reader().journalOf(4L, 0).orElseThrow();
    assertThat(m.reader().journalLeaderHint(hinted)).contains("az-1");
    assertThat(m.reader().journalOf(4L, 1)).contains("quorum-2");
    assertThat(m.reader().journalMoveTarget(4L, 1)).contains("quorum-3");
  }

  @Test
  void moveCommandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(
            golden(MetaGoldenFixturesJournalSpread.COMMANDS_V1_JOURNAL_MOVE));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(48, 48);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesJournalSpread.commandsJournalMove());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }
}
