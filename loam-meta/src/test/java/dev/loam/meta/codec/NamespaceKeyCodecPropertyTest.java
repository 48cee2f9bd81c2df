package dev.loam.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Outcome;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The namespace key commands (tags 38–39) and their outcome (tag 27) round-trip, and every
 * truncation, extension and single-byte change decodes to a value or fails as corruption naming a
 * field, never as another exception.
 */
class NamespaceKeyCodecPropertyTest {

  @Property(tries = 300)
  void commandsRoundTripAndEveryTruncationIsCorruption(@ForAll("commands") Command c) {
    byte[] bytes = CommandCodec.encode(c);
    assertThat(CommandCodec.decode(bytes)).isEqualTo(c);
    for (int len = 0; len < bytes.length; len++) {
      byte[] cut = Arrays.copyOf(bytes, len);
      assertThatThrownBy(() -> CommandCodec.decode(cut))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("field=");
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThatThrownBy(() -> CommandCodec.decode(longer)).isInstanceOf(CorruptionException.class);
  }

  @Property(tries = 300)
  void outcomesRoundTripAndEveryTruncationIsCorruption(@ForAll("outcomes") Outcome o) {
    byte[] bytes = OutcomeCodec.encode(o);
    assertThat(OutcomeCodec.decode(bytes)).isEqualTo(o);
    for (int len = 0; len < bytes.length; len++) {
      byte[] cut = Arrays.copyOf(bytes, len);
      assertThatThrownBy(() -> OutcomeCodec.decode(cut)).isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 500)
  void singleByteDamageDecodesOrIsCorruption(
      @ForAll("outcomes") Outcome o, @ForAll int position, @ForAll byte flip) {
    byte[] bytes = OutcomeCodec.encode(o);
    int at = Math.floorMod(position, bytes.length);
    bytes[at] ^= (flip == 0 ? 1 : flip);
    try {
      OutcomeCodec.decode(bytes);
    } catch (CorruptionException expected) {
      assertThat(expected).hasMessageContaining("field=");
    }
  }

  @Provide
  Arbitrary<Command> commands() {
    Arbitrary<Command> add =
        Combinators.combine(
                CommandCodecPropertyTest.origins(),
                CommandCodecPropertyTest.text(),
                Arbitraries.oneOf(ulids(), CommandCodecPropertyTest.text()))
            .as(AddNamespaceKey::new);
    Arbitrary<Command> destroy =
        Combinators.combine(CommandCodecPropertyTest.origins(), CommandCodecPropertyTest.text())
            .as(DestroyNamespaceKeys::new);
    return Arbitraries.oneOf(add, destroy);
  }

  @Provide
  Arbitrary<Outcome> outcomes() {
    Arbitrary<NamespaceKeys> keys =
        Combinators.combine(
                CommandCodecPropertyTest.text(),
                ulids().list().ofMaxSize(5),
                Arbitraries.of(true, false))
            .as(NamespaceKeys::new);
    return Combinators.combine(keys, Arbitraries.of(true, false))
        .as(Outcome.NamespaceKeysChanged::new);
  }

  static Arbitrary<String> ulids() {
    return Arbitraries.strings().withChars("0123456789ABCDEFGHJKMNPQRSTVWXYZ").ofLength(26);
  }
}
