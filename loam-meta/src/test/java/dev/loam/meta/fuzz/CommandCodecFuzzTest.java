package dev.loam.meta.fuzz;

import static dev.loam.meta.fuzz.Typed.valueOrCorruption;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.Command;

/**
 * Coverage-guided fuzzing of the metastore command decoder ({@link CommandCodec#decode},
 * docs/formats/metastore-commands.md). Commands are what every replica applies, so a decoder that
 * accepted two spellings of one command, or threw anything but corruption, would be a divergence or
 * a crash of the state machine.
 *
 * <p>Contract: a {@code CorruptionException} naming the field, or a command that encodes back to
 * exactly the input bytes (the format is canonical) and decodes again to an equal command.
 */
class CommandCodecFuzzTest {
  @FuzzTest
  void decode(byte[] input) {
    Command c = valueOrCorruption(() -> CommandCodec.decode(input));
    if (c == null) {
      return;
    }
    byte[] again = CommandCodec.encode(c);
    assertThat(CommandCodec.decode(again)).isEqualTo(c);
    assertThat(again).as("re-encoded %s", c).isEqualTo(input);
  }
}
