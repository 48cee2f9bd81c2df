package dev.loam.arrow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.arrow.format.ArrowFrame;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow Java's own IPC stream reader as the oracle for a frame's stored bytes: an IPC stream is
 * built from the schema message, the frame's IPC message exactly as stored, and the end-of-stream
 * marker, and read with {@link ArrowStreamReader}.
 */
final class IpcOracle {
  private IpcOracle() {}

  /** The frame's batch as Arrow's stream reader reads it; the caller closes the root. */
  static VectorSchemaRoot read(Schema schema, ArrowFrame f, BufferAllocator a) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (WriteChannel ch = new WriteChannel(Channels.newChannel(out))) {
      MessageSerializer.serialize(ch, schema);
      ByteBuffer m = f.ipcMessage();
      byte[] b = new byte[m.remaining()];
      m.get(b);
      ch.write(b);
      ch.writeIntLittleEndian(0xFFFFFFFF);
      ch.writeIntLittleEndian(0);
    }
    ArrowStreamReader reader =
        new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), a);
    assertThat(reader.loadNextBatch()).isTrue();
    VectorSchemaRoot src = reader.getVectorSchemaRoot();
    VectorSchemaRoot copy = VectorSchemaRoot.create(src.getSchema(), a);
    try (var batch = new VectorUnloader(src).getRecordBatch()) {
      new org.apache.arrow.vector.VectorLoader(copy).load(batch);
    }
    assertThat(reader.loadNextBatch()).isFalse();
    reader.close();
    return copy;
  }

  /** Asserts row {@code i} of {@code v} holds {@code want} (a value from ArrowArbitraries). */
  static void assertValue(ColumnType t, FieldVector v, int i, Object want) {
    if (want == null) {
      assertThat(v.isNull(i)).as("%s[%d] null", v.getName(), i).isTrue();
      return;
    }
    assertThat(v.isNull(i)).as("%s[%d] not null", v.getName(), i).isFalse();
    Object got =
        switch (t) {
          case BOOL -> ((BitVector) v).get(i) != 0;
          case INT8 -> (long) ((TinyIntVector) v).get(i);
          case INT16 -> (long) ((SmallIntVector) v).get(i);
          case INT32 -> (long) ((IntVector) v).get(i);
          case INT64 -> ((BigIntVector) v).get(i);
          case TIMESTAMP_MS, TIMESTAMP_US, TIMESTAMP_NS -> ((TimeStampVector) v).get(i);
          case FLOAT32 -> ((Float4Vector) v).get(i);
          case FLOAT64 -> ((Float8Vector) v).get(i);
          case UTF8 -> new String(((VarCharVector) v).get(i), StandardCharsets.UTF_8);
          case BINARY -> ((VarBinaryVector) v).get(i);
          case DATE -> LocalDate.ofEpochDay(((DateDayVector) v).get(i));
        };
    assertThat(got).as("%s[%d]", v.getName(), i).isEqualTo(want);
  }
}
