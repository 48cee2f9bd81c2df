package dev.loam.wal.object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class WalObjectPropertyTest {
  record Add(long streamId, int partition, byte[] payload) {}

  record Input(String nodeId, Ulid ulid, DurabilityClass cls, List<Add> adds) {}

  static Arbitrary<Input> inputs(int maxAdds, int maxPayload) {
    Arbitrary<Add> add =
        Combinators.combine(
                Arbitraries.longs().between(-3, 5).injectDuplicates(0.5),
                Arbitraries.integers().between(0, 3),
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(maxPayload))
            .as(Add::new);
    return Combinators.combine(
            Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-', 'é')
                .ofMinLength(1)
                .ofMaxLength(20),
            Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Ulid::new),
            Arbitraries.of(DurabilityClass.class),
            add.list().ofMinSize(1).ofMaxSize(maxAdds))
        .as(Input::new);
  }

  // Encoding is a function of (stream, partition) so adds never conflict.
  static ChunkEncoding encodingOf(Add a) {
    return (a.streamId() + a.partition()) % 3 == 0 ? ChunkEncoding.ARROW : ChunkEncoding.KAFKA;
  }

  static WalObject build(Input in) {
    WalObjectBuilder b = new WalObjectBuilder(in.nodeId(), in.ulid(), in.cls());
    for (Add a : in.adds()) {
      b.add(a.streamId(), a.partition(), encodingOf(a), a.payload());
    }
    return b.build();
  }

  @Provide
  Arbitrary<Input> objects() {
    return inputs(30, 100);
  }

  @Provide
  Arbitrary<Input> smallObjects() {
    return inputs(4, 12);
  }

  @Property(tries = 300)
  void roundTrip(@ForAll("objects") Input in) {
    WalObject o = build(in);
    WalObject p = WalObjectReader.parse(o.bytes());
    assertThat(p.header()).isEqualTo(new WalHeader(1, in.cls(), in.ulid(), in.nodeId()));
    assertThat(p.chunks()).isEqualTo(o.chunks());
    // Every payload is where its ticket says, and chunks are sorted and unique.
    for (int t = 0; t < in.adds().size(); t++) {
      byte[] payload = in.adds().get(t).payload();
      int at = (int) o.payloadOffset(t);
      assertThat(Arrays.copyOfRange(o.bytes(), at, at + payload.length)).isEqualTo(payload);
    }
    for (int i = 1; i < p.chunks().size(); i++) {
      ChunkIndexEntry prev = p.chunks().get(i - 1);
      ChunkIndexEntry cur = p.chunks().get(i);
      assertThat(
              prev.streamId() < cur.streamId()
                  || (prev.streamId() == cur.streamId() && prev.partition() < cur.partition()))
          .isTrue();
    }
    // Within a chunk, payloads keep insertion order.
    long[] lastOffset = new long[1];
    for (ChunkIndexEntry e : p.chunks()) {
      lastOffset[0] = -1;
      for (int t = 0; t < in.adds().size(); t++) {
        Add a = in.adds().get(t);
        if (a.streamId() == e.streamId() && a.partition() == e.partition()) {
          assertThat(o.payloadOffset(t)).isGreaterThan(lastOffset[0]);
          lastOffset[0] = o.payloadOffset(t);
        }
      }
    }
    // A tail read of exactly the required length gives the same index.
    WalObjectReader.WalFooter f = WalObjectReader.parseFooter(o.bytes(), o.size());
    int need = (int) WalObjectReader.requiredTailLength(f, o.size());
    byte[] tail = Arrays.copyOfRange(o.bytes(), o.size() - need, o.size());
    assertThat(WalObjectReader.parseIndex(tail, o.size()).chunks()).isEqualTo(o.chunks());
  }

  @Property(tries = 40)
  void everySingleByteCorruptionIsDetected(@ForAll("smallObjects") Input in, @ForAll byte mask) {
    byte flip = mask == 0 ? (byte) 0x80 : mask;
    byte[] bytes = build(in).bytes();
    for (int i = 0; i < bytes.length; i++) {
      byte[] bad = bytes.clone();
      bad[i] ^= flip;
      int at = i;
      Throwable t = catchThrowable(() -> WalObjectReader.parse(bad));
      assertThat(t)
          .as("flip at byte %d of %d", at, bytes.length)
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 40)
  void everyTruncationIsDetected(@ForAll("smallObjects") Input in) {
    byte[] bytes = build(in).bytes();
    for (int len = 0; len < bytes.length; len++) {
      byte[] prefix = Arrays.copyOf(bytes, len);
      int at = len;
      Throwable t = catchThrowable(() -> WalObjectReader.parse(prefix));
      assertThat(t).as("prefix %d", at).isInstanceOf(CorruptionException.class);
    }
  }
}
