package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The compactor's bounded key → offset map. */
class OffsetMapTest {
  static byte[] k(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void keepsTheHighestOffsetPerKey() {
    OffsetMap m = new OffsetMap(1 << 20, 10);
    m.put(k("a"), 5);
    m.put(k("a"), 3);
    m.put(k("b"), 0);
    m.put(k(""), 9);
    assertThat(m.get(k("a"))).isEqualTo(5);
    assertThat(m.get(k("b"))).isZero();
    assertThat(m.get(k(""))).isEqualTo(9);
    assertThat(m.get(k("c"))).isEqualTo(-1);
    assertThat(m.size()).isEqualTo(3);
  }

  @Test
  void staysWithinItsMemoryBoundAndRefusesKeysBeyondIt() {
    OffsetMap m = new OffsetMap(100 * OffsetMap.SLOT_BYTES, 1_000_000);
    assertThat(m.maxEntries()).isEqualTo(90);
    for (int i = 0; i < 90; i++) {
      m.put(k("key-" + i), i);
    }
    for (int i = 0; i < 90; i++) {
      assertThat(m.get(k("key-" + i))).isEqualTo(i);
    }
    m.put(k("key-7"), 1000); // an existing key still updates when full
    assertThat(m.get(k("key-7"))).isEqualTo(1000);
    assertThatThrownBy(() -> m.put(k("one-more"), 1))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("full");
  }

  @Test
  void isSizedByTheExpectedKeysWhenFewer() {
    OffsetMap m = new OffsetMap(16L << 20, 10);
    assertThat(m.maxEntries()).isGreaterThanOrEqualTo(10).isLessThan(20);
  }
}
