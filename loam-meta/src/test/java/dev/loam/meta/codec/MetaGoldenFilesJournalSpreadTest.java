package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.Command;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden file of command tag 53 (STYLE.md §3). Decoded forever; a failure is a compatibility
 * break, never a reason to regenerate.
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
}
