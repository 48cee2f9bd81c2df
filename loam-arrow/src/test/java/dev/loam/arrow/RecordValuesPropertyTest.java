package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * The record value parser on hostile input: arbitrary bytes, arbitrary strings and damaged valid
 * values are either encoded (and then decode to a canonical value that encodes to the same frame)
 * or refused INVALID with the arrow-schema message, never another exception, and nothing leaks from
 * the allocator.
 */
class RecordValuesPropertyTest {
  private static void check(SchemaHistory h, byte[] value) {
    try (BufferAllocator a = new RootAllocator()) {
      byte[] frame;
      try {
        frame = ArrowBatches.encode(h, List.of(RecordData.of(1, null, value)), a);
      } catch (LoamException e) {
        assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
        assertThat(e.getMessage()).startsWith("record does not match the arrow schema");
        return;
      }
      List<RecordData> back = ArrowBatches.decode(ArrowFrame.read(ByteBuffer.wrap(frame)), h, a);
      assertThat(ArrowBatches.encode(h, back, a)).isEqualTo(frame);
    }
  }

  @Property(tries = 300)
  void arbitraryBytes(@ForAll long seed, @ForAll byte[] value) {
    check(SchemaHistory.of(ArrowArbitraries.schema(new Random(seed))), value);
  }

  @Property(tries = 300)
  void arbitraryText(@ForAll long seed, @ForAll String value) {
    check(
        SchemaHistory.of(ArrowArbitraries.schema(new Random(seed))),
        value.getBytes(StandardCharsets.UTF_8));
  }

  @Property(tries = 300)
  void damagedValidValues(@ForAll long seed, @ForAll int where, @ForAll byte mask) {
    Random r = new Random(seed);
    StreamSchema s = ArrowArbitraries.schema(r);
    byte[] v = ArrowArbitraries.json(r, s, ArrowArbitraries.row(r, s));
    v[Math.floorMod(where, v.length)] ^= (mask == 0 ? 1 : mask);
    check(SchemaHistory.of(s), v);
  }
}
