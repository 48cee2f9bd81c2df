package dev.loam.wal.ulid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class UlidTest {
  @Test
  void knownValues() {
    assertThat(new Ulid(0, 0).toString()).isEqualTo("00000000000000000000000000");
    assertThat(new Ulid(-1, -1).toString()).isEqualTo("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
    // Example from the ULID spec: time 1469922850259 encodes as 01ARZ3NDEK.
    Ulid u = Ulid.parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    assertThat(u.timestampMillis()).isEqualTo(1469922850259L);
    assertThat(u.toString()).isEqualTo("01ARZ3NDEKTSV4RRFFQ69G5FAV");
    assertThat(Ulid.parse("01arz3ndektsv4rrffq69g5fav")).isEqualTo(u);
  }

  @Test
  void unsignedOrder() {
    assertThat(new Ulid(-1, 0)).isGreaterThan(new Ulid(1, 0));
    assertThat(new Ulid(1, -1)).isGreaterThan(new Ulid(1, 1));
  }

  @Test
  void parseRejectsBadInput() {
    for (String bad :
        new String[] {
          "",
          "0000000000000000000000000",
          "000000000000000000000000000",
          "8ZZZZZZZZZZZZZZZZZZZZZZZZZ",
          "0000000000000000000000000I",
          "0000000000000000000000000U",
          "000000000000000000000000é0"
        }) {
      assertThatThrownBy(() -> Ulid.parse(bad))
          .isInstanceOf(LoamException.class)
          .hasMessageContaining("invalid ulid")
          .extracting(e -> ((LoamException) e).kind())
          .isEqualTo(LoamException.Kind.INVALID);
    }
  }

  @Test
  void bytesRoundTripAndBounds() {
    Ulid u = new Ulid(0x0123456789abcdefL, 0xfedcba9876543210L);
    byte[] b = u.toBytes();
    assertThat(b[0]).isEqualTo((byte) 0x01);
    assertThat(b[15]).isEqualTo((byte) 0x10);
    assertThat(Ulid.fromBytes(b, 0)).isEqualTo(u);
    assertThatThrownBy(() -> Ulid.fromBytes(b, 1)).hasMessageContaining("offset=1");
  }

  @Test
  void generatorIsMonotonicAcrossClockGoingBackwards() {
    UlidGenerator g = new UlidGenerator(new SplittableRandom(7));
    Ulid a = g.next(1000);
    Ulid b = g.next(1000);
    Ulid c = g.next(900); // clock went backwards
    Ulid d = g.next(1001);
    assertThat(b).isGreaterThan(a);
    assertThat(c).isGreaterThan(b);
    assertThat(c.timestampMillis()).isEqualTo(1000);
    assertThat(d.timestampMillis()).isEqualTo(1001);
    assertThat(d).isGreaterThan(c);
  }

  @Test
  void generatorOverflowIsInternal() {
    RandomGenerator allOnes =
        new RandomGenerator() {
          @Override
          public long nextLong() {
            return -1L;
          }

          @Override
          public int nextInt() {
            return -1;
          }
        };
    UlidGenerator g = new UlidGenerator(allOnes);
    g.next(5);
    assertThatThrownBy(() -> g.next(5))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("overflow timestampMillis=5")
        .extracting(e -> ((LoamException) e).kind())
        .isEqualTo(LoamException.Kind.INTERNAL);
    assertThat(g.next(6).timestampMillis()).isEqualTo(6);
  }

  @Test
  void generatorCarriesIntoHighRandomBits() {
    RandomGenerator r =
        new RandomGenerator() {
          @Override
          public long nextLong() {
            return -1L;
          }

          @Override
          public int nextInt() {
            return 0;
          }
        };
    UlidGenerator g = new UlidGenerator(r);
    Ulid a = g.next(5);
    Ulid b = g.next(5);
    assertThat(b.msb()).isEqualTo(a.msb() + 1);
    assertThat(b.lsb()).isZero();
  }

  @Test
  void generatorRejectsOutOfRangeTime() {
    UlidGenerator g = new UlidGenerator(new SplittableRandom(1));
    assertThatThrownBy(() -> g.next(-1)).hasMessageContaining("nowMillis=-1");
    assertThatThrownBy(() -> g.next(1L << 48)).hasMessageContaining("out of range");
  }
}
