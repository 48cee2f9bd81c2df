package dev.loam.core.changelog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The changelog state checkpoint (docs/design/changelog.md "The state checkpoint"): decode(encode)
 * is the same state, and any single damaged byte or truncation is a {@link CorruptionException},
 * never a different state.
 */
class ChangelogStatePropertyTest {
  record Op(byte[] key, boolean tombstone) {}

  @Provide
  Arbitrary<List<Op>> ops() {
    Arbitrary<byte[]> keys =
        Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(4).injectNull(0.1);
    return Combinators.combine(keys, Arbitraries.of(true, false)).as(Op::new).list().ofMaxSize(40);
  }

  private static ChangelogState build(List<Op> ops) {
    ChangelogState s = new ChangelogState(7, 3, 1000);
    long offset = 0;
    for (Op op : ops) {
      offset += 1 + (op.key() == null ? 0 : op.key().length % 3);
      s.apply(offset, op.key(), op.tombstone());
    }
    return s;
  }

  @Property(tries = 300)
  void roundTrips(@ForAll("ops") List<Op> ops) {
    ChangelogState s = build(ops);
    byte[] bytes = s.encode();
    ChangelogState back = ChangelogState.decode(bytes, 7, 3, 1000);
    assertThat(back.encode()).isEqualTo(bytes);
    assertThat(back.position()).isEqualTo(s.position());
    assertThat(back.size()).isEqualTo(s.size());
    for (Op op : ops) {
      if (op.key() != null) {
        assertThat(back.rowOffset(op.key())).isEqualTo(s.rowOffset(op.key()));
      }
    }
  }

  @Property(tries = 300)
  void anyDamagedByteOrTruncationIsDetected(
      @ForAll("ops") List<Op> ops, @ForAll int where, @ForAll byte flip) {
    byte[] bytes = build(ops).encode();
    int at = Math.floorMod(where, bytes.length);
    byte[] damaged = bytes.clone();
    damaged[at] ^= (byte) (flip == 0 ? 1 : flip);
    assertThatThrownBy(() -> ChangelogState.decode(damaged, 7, 3, 1000))
        .isInstanceOf(CorruptionException.class);
    byte[] cut = Arrays.copyOf(bytes, at);
    assertThatThrownBy(() -> ChangelogState.decode(cut, 7, 3, 1000))
        .isInstanceOf(CorruptionException.class);
  }

  @Property(tries = 50)
  void aCheckpointOfAnotherPartitionIsRefused(@ForAll("ops") List<Op> ops) {
    byte[] bytes = build(ops).encode();
    assertThatThrownBy(() -> ChangelogState.decode(bytes, 7, 4, 1000))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("field=sourceStreamId");
  }
}
