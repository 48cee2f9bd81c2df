package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.error.CorruptionException;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * A projected load from the frame prefix and only the projected columns' bytes equals the same
 * columns of a full load; damaged column bytes are detected; batches of two schema versions read
 * together as records of the newest version.
 */
class ProjectionAndEvolutionTest {
  @Property(tries = 80)
  void projectedEqualsFull(@ForAll long seed) {
    Random r = new Random(seed);
    StreamSchema s = ArrowArbitraries.schema(r);
    SchemaHistory h = SchemaHistory.of(s);
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < 1 + r.nextInt(20); i++) {
      rows.add(ArrowArbitraries.row(r, s));
    }
    try (BufferAllocator a = new RootAllocator()) {
      byte[] bytes = ArrowBatches.encode(h, ArrowArbitraries.records(r, s, rows), a);
      ArrowFrame full = ArrowFrame.read(ByteBuffer.wrap(bytes));
      // Only the prefix is handed over, and only the projected columns' bytes.
      ArrowFrame prefix =
          ArrowFrame.readPrefix(ByteBuffer.wrap(bytes, 0, full.prefixLength()).slice(), false);
      int c = full.columnCount();
      int[] cols = r.ints(1 + r.nextInt(c), 0, c).distinct().toArray();
      ByteBuffer[] data = new ByteBuffer[cols.length];
      for (int i = 0; i < cols.length; i++) {
        data[i] = full.column(cols[i]);
      }
      try (VectorSchemaRoot all = ArrowBatches.load(full, h, a);
          VectorSchemaRoot some = ArrowBatches.loadProjected(prefix, cols, data, h, a)) {
        assertThat(some.getRowCount()).isEqualTo(all.getRowCount());
        for (int i = 0; i < cols.length; i++) {
          assertThat(some.getVector(i).getField()).isEqualTo(all.getVector(cols[i]).getField());
          for (int row = 0; row < all.getRowCount(); row++) {
            assertThat(some.getVector(i).getObject(row))
                .isEqualTo(all.getVector(cols[i]).getObject(row));
          }
        }
      }
      // One flipped byte in a projected column is caught by that column's CRC.
      int victim = -1;
      for (int i = 0; i < cols.length; i++) {
        if (data[i].remaining() > 0) {
          victim = i;
        }
      }
      if (victim >= 0) {
        byte[] copy = new byte[data[victim].remaining()];
        data[victim].duplicate().get(copy);
        copy[r.nextInt(copy.length)] ^= 1;
        data[victim] = ByteBuffer.wrap(copy);
        assertThatThrownBy(() -> ArrowBatches.loadProjected(prefix, cols, data, h, a).close())
            .isInstanceOf(CorruptionException.class)
            .hasMessageContaining("crc32c");
      }
    }
  }

  @Test
  void oldAndNewBatchesReadTogether() {
    SchemaHistory h1 = SchemaHistory.of(StreamSchema.fromJson(StreamSchemaTest.V1));
    SchemaHistory h2 = h1.evolve(StreamSchema.fromJson(StreamSchemaTest.V2));
    try (BufferAllocator a = new RootAllocator()) {
      byte[] old =
          ArrowBatches.encode(
              h1, List.of(RecordData.of(1, null, utf8("{\"id\":1,\"name\":\"a\"}"))), a);
      byte[] now =
          ArrowBatches.encode(
              h2, List.of(RecordData.of(2, null, utf8("{\"id\":2,\"score\":0.5}"))), a);
      ByteBuffer chunk = ByteBuffer.allocate(old.length + now.length).put(old).put(now).flip();
      List<ArrowFrame> frames = ArrowFrame.readAll(chunk);
      assertThat(frames).extracting(ArrowFrame::schemaVersion).containsExactly(1, 2);
      List<String> values = new ArrayList<>();
      for (ArrowFrame f : frames) {
        for (RecordData d : ArrowBatches.decode(f, h2, a)) {
          values.add(new String(d.value(), StandardCharsets.UTF_8));
        }
      }
      assertThat(values)
          .containsExactly(
              "{\"id\":1,\"name\":\"a\",\"score\":null}", "{\"id\":2,\"name\":null,\"score\":0.5}");
      // A stream that never had version 2 cannot read a batch naming it.
      assertThatThrownBy(() -> ArrowBatches.decode(frames.get(1), h1, a))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("schema_version=2 unknown");
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
