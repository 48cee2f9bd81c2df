package dev.loam.core.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.Principal;
import dev.loam.api.Role;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The verification cache: its time to live, its bound (least recently used out), and dropKey. */
class VerifiedCacheTest {
  private static Principal p(String id) {
    return new Principal(id, null, Set.of(Role.PRODUCE));
  }

  @Test
  void anEntryLivesForItsTtlOnly() {
    VerifiedCache c = new VerifiedCache(10, 1_000);
    c.put("a", "h1", p("a"), 5_000);
    assertThat(c.get("a", "h1", 5_999)).isEqualTo(p("a"));
    assertThat(c.get("a", "h2", 5_500)).as("another secret's hash").isNull();
    assertThat(c.get("a", "h1", 6_000)).isNull();
    assertThat(c.size()).isZero();
  }

  @Test
  void theLeastRecentlyUsedEntryGoesPastTheBound() {
    VerifiedCache c = new VerifiedCache(2, 60_000);
    c.put("a", "h", p("a"), 0);
    c.put("b", "h", p("b"), 0);
    c.get("a", "h", 1);
    c.put("c", "h", p("c"), 2);
    assertThat(c.size()).isEqualTo(2);
    assertThat(c.get("b", "h", 3)).isNull();
    assertThat(c.get("a", "h", 3)).isNotNull();
    assertThat(c.get("c", "h", 3)).isNotNull();
  }

  @Test
  void dropKeyRemovesEveryEntryOfThatKeyOnly() {
    VerifiedCache c = new VerifiedCache(10, 60_000);
    c.put("a", "h1", p("a"), 0);
    c.put("a", "h2", p("a"), 0);
    c.put("ab", "h1", p("ab"), 0);
    c.dropKey("a");
    assertThat(c.get("a", "h1", 1)).isNull();
    assertThat(c.get("a", "h2", 1)).isNull();
    assertThat(c.get("ab", "h1", 1)).as("a key whose id starts with the other's").isNotNull();
  }
}
