package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import dev.loam.wal.BigEndian;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Every compressing codec round-trips any bytes, and any damage to a compressed records section
 * (flipped, inserted, deleted or overwritten bytes, truncation) ends in records or in a {@link
 * CorruptionException}: never another exception, never output past the limit.
 */
class CodecPropertyTest {

  @Provide
  Arbitrary<Compression> codecs() {
    return Arbitraries.of(Compression.GZIP, Compression.SNAPPY, Compression.LZ4, Compression.ZSTD);
  }

  static byte[] repeat(byte[] unit, int times) {
    byte[] out = new byte[unit.length * times];
    for (int i = 0; i < times; i++) {
      System.arraycopy(unit, 0, out, i * unit.length, unit.length);
    }
    return out;
  }

  /** Incompressible bytes, or a short unit repeated up to ~300 KB (many chunks and blocks). */
  @Provide
  Arbitrary<byte[]> payloads() {
    return Arbitraries.oneOf(
        Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(3000),
        Combinators.combine(
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(50),
                Arbitraries.integers().between(1, 6000))
            .as(CodecPropertyTest::repeat));
  }

  @Property(tries = 200)
  void everyCodecRoundTripsWithinAnExactLimit(
      @ForAll("codecs") Compression c, @ForAll("payloads") byte[] data) {
    byte[] z = Codecs.compress(c, data, data.length);
    ByteBuffer out = Codecs.decompress(c, ByteBuffer.wrap(z), data.length, "at position=0");
    byte[] back = new byte[out.remaining()];
    out.get(back);
    assertThat(back).isEqualTo(data);
  }

  /** One edit of a byte array; {@code at} and {@code value} are reduced to fit. */
  record Mutation(int kind, int at, int value) {
    byte[] apply(byte[] in) {
      if (in.length == 0) {
        return new byte[] {(byte) value};
      }
      int i = Math.floorMod(at, in.length);
      switch (kind) {
        case 0 -> {
          byte[] out = in.clone();
          out[i] ^= (byte) (value == 0 ? 1 : value);
          return out;
        }
        case 1 -> {
          return Arrays.copyOf(in, i);
        }
        case 2 -> {
          byte[] out = new byte[in.length + 1];
          System.arraycopy(in, 0, out, 0, i);
          out[i] = (byte) value;
          System.arraycopy(in, i, out, i + 1, in.length - i);
          return out;
        }
        case 3 -> {
          byte[] out = Arrays.copyOf(in, Math.max(in.length, i + 4));
          BigEndian.putInt(out, i, value); // lengths and magic numbers are 4 bytes
          return out;
        }
        default -> {
          byte[] out = new byte[in.length - 1];
          System.arraycopy(in, 0, out, 0, i);
          System.arraycopy(in, i + 1, out, i, in.length - i - 1);
          return out;
        }
      }
    }
  }

  @Provide
  Arbitrary<List<Mutation>> mutations() {
    return Combinators.combine(
            Arbitraries.integers().between(0, 4),
            Arbitraries.integers(),
            Arbitraries.oneOf(
                Arbitraries.integers(),
                Arbitraries.of(0, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 0x7fff_ffff, 1 << 26)))
        .as(Mutation::new)
        .list()
        .ofMinSize(1)
        .ofMaxSize(4);
  }

  @Provide
  Arbitrary<List<RecordData>> records() {
    return BatchArbitraries.recordLists(20);
  }

  /**
   * The batch CRC is recomputed after the damage, as if the batch had been built from bad bytes:
   * only the codec and the record parser stand between the damage and the caller.
   */
  @Property(tries = 500)
  void damagedSectionsDecodeOrFailTyped(
      @ForAll("codecs") Compression c,
      @ForAll("records") List<RecordData> in,
      @ForAll("mutations") List<Mutation> damage) {
    byte[] batch = RecordBatchEncoder.encode(BatchSettings.plain(c), in);
    byte[] section = BatchArbitraries.section(batch);
    for (Mutation m : damage) {
      section = m.apply(section);
    }
    byte[] forged = BatchArbitraries.withSection(batch, c, section);
    Throwable t = catchThrowable(() -> RecordBatch.readFrom(ByteBuffer.wrap(forged)).records());
    if (t != null) {
      assertThat(t).isInstanceOf(CorruptionException.class);
    }
    String outcome =
        t == null
            ? "decoded"
            : t.getMessage().contains("codec=") ? "codec refused" : "parser refused";
    Statistics.label("outcome").collect(outcome);
    Statistics.label("outcome").coverage(cov -> cov.check("codec refused").percentage(p -> p > 30));
  }

  @Property(tries = 300)
  void damagedStreamsStayWithinTheLimit(
      @ForAll("codecs") Compression c,
      @ForAll("payloads") byte[] data,
      @ForAll("mutations") List<Mutation> damage) {
    byte[] z = Codecs.compress(c, data, data.length);
    for (Mutation m : damage) {
      z = m.apply(z);
    }
    int max = Math.max(1, data.length / 2);
    byte[] input = z;
    Throwable t =
        catchThrowable(
            () ->
                assertThat(
                        Codecs.decompress(c, ByteBuffer.wrap(input), max, "at position=0")
                            .remaining())
                    .isLessThanOrEqualTo(max));
    if (t != null) {
      assertThat(t)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("codec=" + c.wireName());
    }
  }
}
