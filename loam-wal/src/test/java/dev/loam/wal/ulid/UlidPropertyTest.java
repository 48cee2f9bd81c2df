package dev.loam.wal.ulid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class UlidPropertyTest {
  @Property(tries = 1000)
  void stringAndBytesRoundTrip(@ForAll long msb, @ForAll long lsb) {
    Ulid u = new Ulid(msb, lsb);
    String s = u.toString();
    assertThat(s).hasSize(26).matches("[0-7][0-9A-HJKMNP-TV-Z]{25}");
    assertThat(Ulid.parse(s)).isEqualTo(u);
    assertThat(Ulid.fromBytes(u.toBytes(), 0)).isEqualTo(u);
  }

  @Property(tries = 1000)
  void orderMatchesStringOrder(@ForAll long m1, @ForAll long l1, @ForAll long m2, @ForAll long l2) {
    Ulid a = new Ulid(m1, l1);
    Ulid b = new Ulid(m2, l2);
    assertThat(Integer.signum(a.compareTo(b)))
        .isEqualTo(Integer.signum(a.toString().compareTo(b.toString())));
  }

  @Property(tries = 200)
  void generatorIsStrictlyMonotonic(
      @ForAll long seed,
      @ForAll @Size(min = 1, max = 200) List<@LongRange(min = 0, max = 2000) Long> clock) {
    UlidGenerator g = new UlidGenerator(new SplittableRandom(seed));
    Ulid prev = null;
    long maxSeen = -1;
    for (long now : clock) {
      Ulid u = g.next(now);
      maxSeen = Math.max(maxSeen, now);
      // Time never goes backwards and never runs ahead of the clock's maximum.
      assertThat(u.timestampMillis()).isEqualTo(maxSeen);
      if (prev != null) {
        assertThat(u).isGreaterThan(prev);
      }
      prev = u;
    }
  }
}
