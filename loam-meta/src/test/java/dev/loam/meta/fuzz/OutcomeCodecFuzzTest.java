package dev.loam.meta.fuzz;

import static dev.loam.meta.fuzz.Typed.valueOrCorruption;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.Outcome;

/**
 * Coverage-guided fuzzing of the metastore outcome decoder ({@link OutcomeCodec#decode},
 * docs/formats/metastore-commands.md): the answers a replica returns to the node that proposed a
 * command.
 *
 * <p>Contract: a {@code CorruptionException} naming the field, or an outcome that encodes back to
 * exactly the input bytes and decodes again to an equal outcome.
 */
class OutcomeCodecFuzzTest {
  @FuzzTest
  void decode(byte[] input) {
    Outcome o = valueOrCorruption(() -> OutcomeCodec.decode(input));
    if (o == null) {
      return;
    }
    byte[] again = OutcomeCodec.encode(o);
    assertThat(OutcomeCodec.decode(again)).isEqualTo(o);
    assertThat(again).as("re-encoded %s", o).isEqualTo(input);
  }
}
