package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.arrow.format.ArrowFrame;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Records to Arrow to records, for random schemas of every supported type with nulls: the values
 * read back equal the values written, through both the record decoder and Arrow's own IPC reader
 * ({@link IpcOracle}); keys and timestamps survive; nothing leaks from the allocator.
 */
class ArrowRoundTripPropertyTest {
  private static final ObjectMapper EXACT =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @Property(tries = 200)
  void recordsSurviveArrow(@ForAll long seed, @ForAll @IntRange(min = 1, max = 40) int count)
      throws Exception {
    Random r = new Random(seed);
    StreamSchema s = ArrowArbitraries.schema(r);
    SchemaHistory h = SchemaHistory.of(s);
    List<List<Object>> rows = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      rows.add(ArrowArbitraries.row(r, s));
    }
    List<RecordData> in = ArrowArbitraries.records(r, s, rows);
    try (BufferAllocator a = new RootAllocator()) {
      byte[] frame = ArrowBatches.encode(h, in, a);
      List<ArrowFrame> frames = ArrowFrame.readAll(ByteBuffer.wrap(frame));
      assertThat(frames).hasSize(1);
      ArrowFrame f = frames.get(0);
      assertThat(f.recordCount()).isEqualTo(count);
      assertThat(f.schemaVersion()).isEqualTo(1);
      assertThat(f.baseTimestamp())
          .isEqualTo(in.stream().mapToLong(RecordData::timestamp).min().getAsLong());
      assertThat(f.maxTimestamp())
          .isEqualTo(in.stream().mapToLong(RecordData::timestamp).max().getAsLong());

      List<RecordData> out = ArrowBatches.decode(f, h, a);
      assertThat(out).hasSize(count);
      for (int i = 0; i < count; i++) {
        assertThat(out.get(i).timestamp()).isEqualTo(in.get(i).timestamp());
        assertThat(out.get(i).key()).isEqualTo(in.get(i).key());
        assertThat(out.get(i).headers()).isEmpty();
        checkJson(s, rows.get(i), EXACT.readTree(out.get(i).value()));
      }
      // The record decoder's JSON is canonical: decoding it again gives the same bytes.
      byte[] again = ArrowBatches.encode(h, out, a);
      assertThat(ArrowBatches.decode(ArrowFrame.readAll(ByteBuffer.wrap(again)).get(0), h, a))
          .isEqualTo(out);

      try (VectorSchemaRoot oracle = IpcOracle.read(s.batchSchema(), f, a)) {
        assertThat(oracle.getRowCount()).isEqualTo(count);
        for (int i = 0; i < count; i++) {
          for (int c = 0; c < s.fields().size(); c++) {
            FieldVector v = oracle.getVector(c + StreamSchema.SYSTEM_COLUMNS);
            IpcOracle.assertValue(s.types().get(c), v, i, rows.get(i).get(c));
          }
        }
      }
    }
  }

  static void checkJson(StreamSchema s, List<Object> row, JsonNode node) {
    assertThat(node.size()).isEqualTo(s.fields().size());
    for (int c = 0; c < s.fields().size(); c++) {
      String name = s.fields().get(c).getName();
      JsonNode v = node.get(name);
      assertThat(v).as(name).isNotNull();
      Object want = row.get(c);
      if (want == null) {
        assertThat(v.isNull()).as(name).isTrue();
        continue;
      }
      switch (s.types().get(c)) {
        case BOOL -> assertThat(v.booleanValue()).isEqualTo(want);
        case FLOAT32 -> assertThat(Float.parseFloat(v.decimalValue().toString())).isEqualTo(want);
        case FLOAT64 -> assertThat(Double.parseDouble(v.decimalValue().toString())).isEqualTo(want);
        case UTF8 -> assertThat(v.textValue()).isEqualTo(want);
        case BINARY -> assertThat(Base64.getDecoder().decode(v.textValue())).isEqualTo(want);
        case DATE -> assertThat(v.textValue()).isEqualTo(want.toString());
        default -> assertThat(v.longValue()).as(name).isEqualTo(want);
      }
    }
  }
}
