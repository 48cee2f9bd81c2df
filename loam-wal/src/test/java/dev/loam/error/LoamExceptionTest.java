package dev.loam.error;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class LoamExceptionTest {
  @Test
  void onlyUnavailableIsRetriable() {
    for (LoamException.Kind k : LoamException.Kind.values()) {
      assertThat(new LoamException(k, "x").isRetriable())
          .isEqualTo(k == LoamException.Kind.UNAVAILABLE);
    }
  }

  @Property(tries = 10)
  void corruptionKeepsMessage(@ForAll String msg) {
    assertThat(new CorruptionException(msg))
        .hasMessage(msg)
        .extracting(LoamException::kind)
        .isEqualTo(LoamException.Kind.CORRUPTION);
  }
}
