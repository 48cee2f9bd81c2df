package dev.loam.journal.entry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Round trip and refusals of the journal reply format (journal-entry-v1.md "Reply"). */
class JournalResultCodecPropertyTest {
  @Provide
  static Arbitrary<JournalResult> results() {
    Arbitrary<Long> off = Arbitraries.longs();
    return Arbitraries.oneOf(
        off.map(JournalResult.Hosted::new),
        Combinators.combine(off, off).as(JournalResult.Appended::new),
        Combinators.combine(off, off).as(JournalResult.Duplicate::new),
        off.map(JournalResult.Sealed::new),
        Combinators.combine(
                Arbitraries.of(JournalResult.Reason.class), Arbitraries.strings().ofMaxLength(300))
            .as(JournalResult.Rejected::new));
  }

  @Property(tries = 300)
  void roundTrips(@ForAll("results") JournalResult r) {
    assertThat(JournalResultCodec.decode(JournalResultCodec.encode(r))).isEqualTo(r);
  }

  @Property(tries = 200)
  void truncationIsDetected(@ForAll("results") JournalResult r) {
    byte[] bytes = JournalResultCodec.encode(r);
    for (int n = 0; n < bytes.length; n++) {
      byte[] shorter = Arrays.copyOf(bytes, n);
      assertThatThrownBy(() -> JournalResultCodec.decode(shorter))
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 500)
  void arbitraryBytesOnlyEverFailAsCorruption(@ForAll byte[] bytes) {
    try {
      JournalResultCodec.decode(bytes);
    } catch (CorruptionException expected) {
      // the only failure allowed
    }
  }

  @Test
  void aLongMessageIsCutAtACharacterBoundary() {
    String m = "é".repeat(3000);
    JournalResult back =
        JournalResultCodec.decode(
            JournalResultCodec.encode(
                new JournalResult.Rejected(JournalResult.Reason.TAIL_FULL, m)));
    String cut = ((JournalResult.Rejected) back).message();
    assertThat(cut).isEqualTo("é".repeat(2048));
  }
}
