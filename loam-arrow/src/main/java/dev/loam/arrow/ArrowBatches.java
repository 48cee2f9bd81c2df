package dev.loam.arrow;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.batch.RecordData;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.WriteChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Records to arrow batch frames and back (docs/formats/arrow-batch-v1.md): {@link #encode} turns
 * one append's records into one frame of the stream's newest schema version, refusing records that
 * do not match it; {@link #load} and {@link #loadProjected} read a frame into Arrow vectors with
 * Arrow's own IPC reader; {@link #decode} rebuilds records from a frame for record-oriented reads.
 */
public final class ArrowBatches {
  private ArrowBatches() {}

  /**
   * One frame holding {@code records}, written with the newest version of {@code history}. Each
   * record's value is a JSON object of that version's fields; keys go to {@value StreamSchema#KEY},
   * timestamps to {@value StreamSchema#TIMESTAMP}.
   *
   * @throws LoamException INVALID naming the record, field and reason for a record that does not
   *     match the schema, or for a record with headers (arrow streams keep none)
   */
  public static byte[] encode(
      SchemaHistory history, List<RecordData> records, BufferAllocator allocator) {
    Objects.requireNonNull(records, "records");
    if (records.isEmpty()) {
      throw new LoamException(Kind.INVALID, "an arrow append needs at least one record");
    }
    StreamSchema schema = history.latest();
    RecordValues values = new RecordValues(schema);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(schema.batchSchema(), allocator)) {
      List<FieldVector> all = root.getFieldVectors();
      VarBinaryVector keys = (VarBinaryVector) all.get(0);
      TimeStampVector times = (TimeStampVector) all.get(1);
      List<FieldVector> user = all.subList(StreamSchema.SYSTEM_COLUMNS, all.size());
      for (FieldVector v : all) {
        v.setInitialCapacity(records.size());
        v.allocateNew();
      }
      long minTs = Long.MAX_VALUE;
      long maxTs = Long.MIN_VALUE;
      for (int r = 0; r < records.size(); r++) {
        RecordData d = records.get(r);
        if (!d.headers().isEmpty()) {
          throw new LoamException(
              Kind.INVALID,
              "record does not match the arrow schema: arrow streams keep no record headers"
                  + " record="
                  + r);
        }
        values.parseInto(r, d.value(), user, r);
        if (d.key() == null) {
          keys.setNull(r);
        } else {
          keys.setSafe(r, d.key());
        }
        times.setSafe(r, d.timestamp());
        minTs = Math.min(minTs, d.timestamp());
        maxTs = Math.max(maxTs, d.timestamp());
      }
      root.setRowCount(records.size());
      return frame(root, history.latestVersion(), minTs, maxTs);
    }
  }

  /**
   * Serializes {@code root} as one Arrow IPC record batch message and wraps it in a frame.
   *
   * @param minTs the smallest record timestamp, {@code maxTs} the largest
   */
  static byte[] frame(VectorSchemaRoot root, int schemaVersion, long minTs, long maxTs) {
    VectorUnloader unloader = new VectorUnloader(root);
    try (ArrowRecordBatch batch = unloader.getRecordBatch()) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      ArrowBlock block;
      try (WriteChannel ch = new WriteChannel(Channels.newChannel(out))) {
        block = MessageSerializer.serialize(ch, batch);
      }
      byte[] message = out.toByteArray();
      int metadata = block.getMetadataLength();
      int body = Math.toIntExact(block.getBodyLength());
      int[] lengths = columnLengths(root.getSchema(), batch.getBuffersLayout(), body);
      return ArrowFrame.encode(
          schemaVersion, root.getRowCount(), minTs, maxTs, lengths, message, metadata);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Each top-level column's byte length in the body: from its first buffer to the next's. */
  private static int[] columnLengths(Schema schema, List<ArrowBuffer> layout, int body) {
    List<Field> fields = schema.getFields();
    long[] starts = new long[fields.size()];
    int b = 0;
    for (int i = 0; i < fields.size(); i++) {
      starts[i] = layout.get(b).getOffset();
      b += TypeLayout.getTypeBufferCount(fields.get(i).getType());
    }
    if (b != layout.size() || starts[0] != 0) {
      throw new IllegalStateException("unexpected IPC buffer layout " + layout);
    }
    int[] lengths = new int[fields.size()];
    for (int i = 0; i < fields.size(); i++) {
      long end = i + 1 < fields.size() ? starts[i + 1] : body;
      lengths[i] = Math.toIntExact(end - starts[i]);
    }
    return lengths;
  }

  /**
   * Reads a whole, verified frame into vectors of its own schema version (system columns included).
   * The caller closes the root.
   *
   * @throws CorruptionException if the IPC bytes do not hold a record batch of that schema
   */
  public static VectorSchemaRoot load(
      ArrowFrame frame, SchemaHistory history, BufferAllocator allocator) {
    Schema schema = history.version(frame.schemaVersion()).batchSchema();
    return loadColumns(frame, schema, frame.body(), allColumns(schema), allocator);
  }

  /**
   * Reads only some columns of a frame: {@code frame} may hold only its prefix (read with {@link
   * ArrowFrame#readPrefix}), {@code columnBytes[i]} holds column {@code columns[i]}'s body bytes,
   * each verified here against the frame's column CRC. The result has the projected columns of the
   * frame's own schema version, in the order given. The caller closes the root.
   *
   * @throws CorruptionException if a column fails its CRC or the IPC bytes do not hold a record
   *     batch of that schema
   */
  public static VectorSchemaRoot loadProjected(
      ArrowFrame frame,
      int[] columns,
      ByteBuffer[] columnBytes,
      SchemaHistory history,
      BufferAllocator allocator) {
    if (columns.length != columnBytes.length) {
      throw new IllegalArgumentException("one byte range per column");
    }
    Schema schema = history.version(frame.schemaVersion()).batchSchema();
    ByteBuffer body = ByteBuffer.allocate(frame.bodyLength());
    for (int i = 0; i < columns.length; i++) {
      int c = columns[i];
      if (c < 0 || c >= frame.columnCount()) {
        throw new IllegalArgumentException("column out of range: " + c);
      }
      frame.verifyColumn(c, columnBytes[i].duplicate());
      body.put(frame.columnOffset(c), columnBytes[i].duplicate(), 0, frame.columnLength(c));
    }
    return loadColumns(frame, schema, body, columns, allocator);
  }

  private static int[] allColumns(Schema schema) {
    int[] all = new int[schema.getFields().size()];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    return all;
  }

  private static VectorSchemaRoot loadColumns(
      ArrowFrame frame, Schema schema, ByteBuffer body, int[] columns, BufferAllocator allocator) {
    List<Field> fields = schema.getFields();
    if (fields.size() != frame.columnCount()) {
      throw new CorruptionException(
          "arrow frame column_count="
              + frame.columnCount()
              + " but schema version "
              + frame.schemaVersion()
              + " has "
              + fields.size()
              + " columns");
    }
    MessageMetadataResult meta = readMetadata(frame);
    ArrowBuf buf = allocator.buffer(Math.max(1, frame.bodyLength()));
    try {
      buf.setBytes(0, body.duplicate().position(0).limit(frame.bodyLength()));
      buf.writerIndex(frame.bodyLength());
    } catch (RuntimeException e) {
      buf.close();
      throw e;
    }
    // Arrow's deserializer takes over the body buffer: the batch's buffers are slices of it.
    {
      try (ArrowRecordBatch batch = deserialize(meta, buf, frame)) {
        List<ArrowFieldNode> nodes = batch.getNodes();
        List<ArrowBuf> buffers = batch.getBuffers();
        if (nodes.size() != fields.size()) {
          throw new CorruptionException(
              "arrow IPC record batch has "
                  + nodes.size()
                  + " field nodes, expected "
                  + fields.size());
        }
        int[] firstBuffer = new int[fields.size() + 1];
        for (int i = 0; i < fields.size(); i++) {
          firstBuffer[i + 1] =
              firstBuffer[i] + TypeLayout.getTypeBufferCount(fields.get(i).getType());
        }
        if (firstBuffer[fields.size()] != buffers.size()) {
          throw new CorruptionException(
              "arrow IPC record batch has "
                  + buffers.size()
                  + " buffers, expected "
                  + firstBuffer[fields.size()]);
        }
        List<Field> outFields = new ArrayList<>(columns.length);
        List<ArrowFieldNode> outNodes = new ArrayList<>(columns.length);
        List<ArrowBuf> outBuffers = new ArrayList<>();
        for (int c : columns) {
          outFields.add(fields.get(c));
          outNodes.add(nodes.get(c));
          outBuffers.addAll(buffers.subList(firstBuffer[c], firstBuffer[c + 1]));
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(outFields), allocator);
        try (ArrowRecordBatch projected =
            new ArrowRecordBatch(batch.getLength(), outNodes, outBuffers)) {
          new VectorLoader(root).load(projected);
          if (root.getRowCount() != frame.recordCount()) {
            throw new CorruptionException(
                "arrow frame record_count="
                    + frame.recordCount()
                    + " but the IPC record batch has "
                    + root.getRowCount());
          }
          return root;
        } catch (RuntimeException e) {
          root.close();
          if (e instanceof LoamException) {
            throw e;
          }
          throw new CorruptionException("arrow IPC record batch unreadable: " + e.getMessage(), e);
        }
      }
    }
  }

  private static MessageMetadataResult readMetadata(ArrowFrame frame) {
    ByteBuffer m = frame.ipcMetadata();
    byte[] bytes = new byte[m.remaining()];
    m.get(bytes);
    MessageMetadataResult meta;
    try (ReadChannel ch = new ReadChannel(Channels.newChannel(new ByteArrayInputStream(bytes)))) {
      meta = MessageSerializer.readMessage(ch);
    } catch (IOException | RuntimeException e) {
      throw new CorruptionException("arrow IPC metadata unreadable: " + e.getMessage(), e);
    }
    if (meta == null) {
      throw new CorruptionException("arrow IPC metadata holds no message");
    }
    if (meta.getMessage().headerType() != MessageHeader.RecordBatch) {
      throw new CorruptionException(
          "arrow IPC message is not a record batch: header type " + meta.getMessage().headerType());
    }
    if (meta.getMessageLength() + 8 != frame.metadataLength()) {
      throw new CorruptionException(
          "arrow IPC metadata length "
              + (meta.getMessageLength() + 8)
              + " but metadata_length="
              + frame.metadataLength());
    }
    if (meta.getMessageBodyLength() != frame.bodyLength()) {
      throw new CorruptionException(
          "arrow IPC body length "
              + meta.getMessageBodyLength()
              + " but body_length="
              + frame.bodyLength());
    }
    return meta;
  }

  private static ArrowRecordBatch deserialize(
      MessageMetadataResult meta, ArrowBuf body, ArrowFrame frame) {
    try {
      ArrowRecordBatch b = MessageSerializer.deserializeRecordBatch(meta, body);
      if (b.getLength() != frame.recordCount()) {
        b.close();
        throw new CorruptionException(
            "arrow frame record_count="
                + frame.recordCount()
                + " but the IPC record batch has "
                + b.getLength());
      }
      return b;
    } catch (IOException | RuntimeException e) {
      if (body.refCnt() > 0) {
        body.close();
      }
      if (e instanceof LoamException le) {
        throw le;
      }
      throw new CorruptionException("arrow IPC record batch unreadable: " + e.getMessage(), e);
    }
  }

  /**
   * The records of a whole, verified frame, their values as JSON objects of the newest schema
   * version's fields (a field the frame's version lacks is null), so batches of every version read
   * together.
   *
   * @throws CorruptionException if the frame's IPC bytes are not a batch of its schema version
   */
  public static List<RecordData> decode(
      ArrowFrame frame, SchemaHistory history, BufferAllocator allocator) {
    StreamSchema latest = history.latest();
    RecordValues values = new RecordValues(latest);
    try (VectorSchemaRoot root = load(frame, history, allocator)) {
      VarBinaryVector keys = (VarBinaryVector) root.getVector(0);
      TimeStampVector times = (TimeStampVector) root.getVector(1);
      List<FieldVector> user = new ArrayList<>(latest.fields().size());
      for (Field f : latest.fields()) {
        user.add(root.getVector(f.getName()));
      }
      List<RecordData> out = new ArrayList<>(root.getRowCount());
      for (int r = 0; r < root.getRowCount(); r++) {
        byte[] key = keys.isNull(r) ? null : keys.get(r);
        if (times.isNull(r)) {
          throw new CorruptionException("arrow batch _timestamp null at row " + r);
        }
        out.add(RecordData.of(times.get(r), key, values.write(user, r)));
      }
      return out;
    }
  }

  /**
   * The named columns of the newest schema version (system columns included; all of them when
   * {@code columns} is empty), in the order given, loaded from a whole, verified frame of any
   * version: only those columns' bytes are decoded, and a column the frame's version lacks is all
   * null. The caller closes the root.
   *
   * @throws LoamException INVALID for a column the newest version does not have
   * @throws CorruptionException if the frame's IPC bytes are not a batch of its version
   */
  public static VectorSchemaRoot loadView(
      ArrowFrame frame, SchemaHistory history, List<String> columns, BufferAllocator allocator) {
    Schema own = history.version(frame.schemaVersion()).batchSchema();
    List<Field> ownFields = own.getFields();
    List<Integer> present = new ArrayList<>();
    for (Field f : fields(history.latest().batchSchema(), columns)) {
      for (int i = 0; i < ownFields.size(); i++) {
        if (ownFields.get(i).getName().equals(f.getName())) {
          present.add(i);
        }
      }
    }
    int[] cols = present.stream().mapToInt(Integer::intValue).toArray();
    ByteBuffer[] data = new ByteBuffer[cols.length];
    for (int i = 0; i < cols.length; i++) {
      data[i] = frame.column(cols[i]);
    }
    return loadView(frame, cols, data, history, columns, allocator);
  }

  /**
   * The columns a projected read of {@code columns} (columns of the newest version, system columns
   * allowed) needs from a frame of {@code schemaVersion}: positions in that version's batch schema,
   * increasing, the system columns always included and columns the version lacks left out.
   */
  public static int[] fetchedColumns(
      SchemaHistory history, int schemaVersion, List<String> columns) {
    List<Field> own = history.version(schemaVersion).batchSchema().getFields();
    List<Integer> out = new ArrayList<>(List.of(0, 1));
    for (int i = StreamSchema.SYSTEM_COLUMNS; i < own.size(); i++) {
      if (columns.contains(own.get(i).getName())) {
        out.add(i);
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * As {@link #loadView(ArrowFrame, SchemaHistory, List, BufferAllocator)} from a frame read in
   * part: {@code frame} may hold only its prefix, {@code data[i]} holds column {@code cols[i]}'s
   * bytes (verified here against its CRC); {@code cols} must hold every column of {@code columns}
   * the frame's version has.
   */
  public static VectorSchemaRoot loadView(
      ArrowFrame frame,
      int[] cols,
      ByteBuffer[] data,
      SchemaHistory history,
      List<String> columns,
      BufferAllocator allocator) {
    List<Field> want = fields(history.latest().batchSchema(), columns);
    try (VectorSchemaRoot loaded = loadProjected(frame, cols, data, history, allocator)) {
      VectorSchemaRoot out = VectorSchemaRoot.create(new Schema(want), allocator);
      try {
        int rows = loaded.getRowCount();
        for (int i = 0; i < want.size(); i++) {
          FieldVector target = out.getVector(i);
          FieldVector source = loaded.getVector(want.get(i).getName());
          if (source != null) {
            source.makeTransferPair(target).transfer();
          } else {
            target.setInitialCapacity(rows);
            target.allocateNew();
            target.setValueCount(rows);
          }
        }
        out.setRowCount(rows);
        return out;
      } catch (RuntimeException e) {
        out.close();
        throw e;
      }
    }
  }

  /** The fields of {@code schema} named by {@code columns} (all when empty), in that order. */
  public static List<Field> fields(Schema schema, List<String> columns) {
    if (columns.isEmpty()) {
      return schema.getFields();
    }
    List<Field> out = new ArrayList<>(columns.size());
    for (String c : columns) {
      Field f = null;
      for (Field g : schema.getFields()) {
        if (g.getName().equals(c)) {
          f = g;
        }
      }
      if (f == null) {
        throw new LoamException(Kind.INVALID, "no such column column=" + c);
      }
      out.add(f);
    }
    return out;
  }

  /**
   * {@code root} as one Arrow IPC record batch message: the frame {@link #encode} would store
   * (schema version {@code schemaVersion}; timestamps are not used by readers of the message).
   */
  public static ArrowFrame message(VectorSchemaRoot root, int schemaVersion) {
    return ArrowFrame.read(ByteBuffer.wrap(frame(root, schemaVersion, 0, 0)));
  }

  /** The JSON value of row {@code row}, as {@link #decode} writes it, from a loaded root. */
  public static byte[] valueJson(StreamSchema latest, VectorSchemaRoot root, int row) {
    List<FieldVector> user = new ArrayList<>(latest.fields().size());
    for (Field f : latest.fields()) {
      user.add(root.getVector(f.getName()));
    }
    return new RecordValues(latest).write(user, row);
  }
}
