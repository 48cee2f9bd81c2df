package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Damage to an arrow frame is detected: every single flipped byte outside base_offset fails the
 * frame's checks with a typed error, every proper prefix is rejected, and base_offset alone may
 * change (the segmenter patches it). The column index round-trips and rejects every truncation.
 */
class ArrowFramePropertyTest {
  private static byte[] frame(long seed, int count) {
    Random r = new Random(seed);
    StreamSchema s = ArrowArbitraries.schema(r);
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(ArrowArbitraries.row(r, s));
    }
    List<RecordData> in = ArrowArbitraries.records(r, s, rows);
    try (BufferAllocator a = new RootAllocator()) {
      return ArrowBatches.encode(SchemaHistory.of(s), in, a);
    }
  }

  @Property(tries = 60)
  void everyFlippedByteIsDetected(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 8) int count,
      @ForAll int where,
      @ForAll byte mask) {
    byte[] bytes = frame(seed, count);
    int at = 8 + Math.floorMod(where, bytes.length - 8);
    byte flip = mask == 0 ? 1 : mask;
    bytes[at] ^= flip;
    assertThatThrownBy(() -> ArrowFrame.read(ByteBuffer.wrap(bytes)))
        .as("flip at %d of %d", at, bytes.length)
        .isInstanceOfSatisfying(
            LoamException.class,
            e ->
                assertThat(e.kind())
                    .isIn(LoamException.Kind.CORRUPTION, LoamException.Kind.INVALID));
  }

  @Property(tries = 30)
  void everyProperPrefixIsRejected(@ForAll long seed) {
    byte[] bytes = frame(seed, 3);
    for (int n = 0; n < bytes.length; n++) {
      byte[] prefix = Arrays.copyOf(bytes, n);
      assertThatThrownBy(() -> ArrowFrame.readAll(ByteBuffer.wrap(prefix)))
          .as("prefix %d of %d", n, bytes.length)
          .isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 30)
  void baseOffsetIsOutsideTheChecks(@ForAll long seed, @ForAll long offset) {
    byte[] bytes = frame(seed, 2);
    ArrowFrame.patchBaseOffset(bytes, 0, offset);
    ArrowFrame f = ArrowFrame.read(ByteBuffer.wrap(bytes));
    assertThat(f.baseOffset()).isEqualTo(offset);
  }

  @Property(tries = 30)
  void framesBackToBackReadInOrder(@ForAll long seed, @ForAll @IntRange(min = 1, max = 5) int n) {
    List<byte[]> frames = new ArrayList<>();
    int total = 0;
    for (int i = 0; i < n; i++) {
      byte[] f = frame(seed + i, 1 + i);
      frames.add(f);
      total += f.length;
    }
    ByteBuffer chunk = ByteBuffer.allocate(total);
    frames.forEach(chunk::put);
    List<ArrowFrame> read = ArrowFrame.readAll(chunk.flip());
    assertThat(read)
        .extracting(ArrowFrame::recordCount)
        .containsExactly(
            java.util.stream.IntStream.rangeClosed(1, n).boxed().toArray(Integer[]::new));
    ColumnIndex index = new ColumnIndex(read.stream().map(ColumnIndex.Entry::of).toList());
    byte[] encoded = index.encode();
    assertThat(ColumnIndex.parse(ByteBuffer.wrap(encoded), n)).isEqualTo(index);
    for (int i = 0; i < n; i++) {
      assertThat(index.entries().get(i).frameSize()).isEqualTo(read.get(i).size());
    }
    for (int k = 0; k < encoded.length; k++) {
      byte[] prefix = Arrays.copyOf(encoded, k);
      assertThatThrownBy(() -> ColumnIndex.parse(ByteBuffer.wrap(prefix), n))
          .isInstanceOf(CorruptionException.class);
    }
    assertThatThrownBy(() -> ColumnIndex.parse(ByteBuffer.wrap(encoded), n + 1))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("count");
  }
}
