package dev.loam.arrow;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.core.arrow.ArrowCodec;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The node's {@link ArrowCodec}, registered with {@link java.util.ServiceLoader}: parses schema
 * texts once per distinct version list (a bounded cache), and encodes and decodes with {@link
 * ArrowBatches} on one process-wide allocator whose buffers live only for the duration of a call.
 */
public final class LoamArrowCodec implements ArrowCodec {
  /** Distinct schema histories kept parsed; past this the cache starts over. */
  static final int MAX_CACHED = 1024;

  private static final BufferAllocator ALLOCATOR = new RootAllocator();

  private final Map<List<String>, SchemaHistory> histories = new ConcurrentHashMap<>();

  /** The instance {@link java.util.ServiceLoader} creates. */
  public LoamArrowCodec() {}

  /** The parsed form of a stream's schema texts. */
  public SchemaHistory history(List<String> versions) {
    SchemaHistory h = histories.get(versions);
    if (h != null) {
      return h;
    }
    List<StreamSchema> parsed = new ArrayList<>(versions.size());
    for (String v : versions) {
      parsed.add(StreamSchema.fromJson(v));
    }
    h = new SchemaHistory(parsed);
    if (histories.size() >= MAX_CACHED) {
      histories.clear();
    }
    histories.put(List.copyOf(versions), h);
    return h;
  }

  @Override
  public String checkSchema(String json) {
    return StreamSchema.fromJson(json).toJson();
  }

  @Override
  public String checkEvolution(List<String> versions, String json) {
    StreamSchema next = StreamSchema.fromJson(json);
    history(versions).evolve(next);
    return next.toJson();
  }

  @Override
  public byte[] encode(List<String> versions, List<RecordData> records) {
    return ArrowBatches.encode(history(versions), records, ALLOCATOR);
  }

  @Override
  public List<List<RecordData>> decode(List<String> versions, ByteBuffer bytes) {
    SchemaHistory h = history(versions);
    List<List<RecordData>> out = new ArrayList<>();
    for (ArrowFrame f : ArrowFrame.readAll(bytes)) {
      out.add(ArrowBatches.decode(f, h, ALLOCATOR));
    }
    return out;
  }

  @Override
  public List<FrameSummary> frames(ByteBuffer bytes) {
    List<FrameSummary> out = new ArrayList<>();
    for (ArrowFrame f : ArrowFrame.readAll(bytes)) {
      out.add(new FrameSummary(f.size(), f.recordCount(), f.maxTimestamp()));
    }
    return out;
  }

  @Override
  public byte[] columnIndex(ByteBuffer bytes) {
    ByteBuffer b = bytes.slice();
    List<ColumnIndex.Entry> entries = new ArrayList<>();
    while (b.hasRemaining()) {
      ArrowFrame f = ArrowFrame.readPrefix(b, true);
      entries.add(ColumnIndex.Entry.of(f));
      b.position(b.position() + f.size());
    }
    return new ColumnIndex(entries).encode();
  }

  @Override
  public List<FrameColumns> parseColumnIndex(ByteBuffer columnIndex, int count) {
    List<FrameColumns> out = new ArrayList<>(count);
    for (ColumnIndex.Entry e : ColumnIndex.parse(columnIndex, count).entries()) {
      out.add(new FrameColumns(e.schemaVersion(), e.prefixLength(), e.columnLengths()));
    }
    return out;
  }

  @Override
  public int[] projectedColumns(List<String> versions, int schemaVersion, List<String> columns) {
    SchemaHistory h = history(versions);
    List<String> user = new ArrayList<>();
    for (String c : columns) {
      if (!StreamSchema.isSystemColumn(c)) {
        user.add(c);
      }
    }
    if (user.isEmpty() && columns.isEmpty()) {
      throw new LoamException(Kind.INVALID, "a projected read needs at least one column");
    }
    if (!user.isEmpty()) {
      userFields(h, user);
    }
    if (columns.stream().distinct().count() != columns.size()) {
      throw new LoamException(Kind.INVALID, "a column is named twice columns=" + columns);
    }
    return ArrowBatches.fetchedColumns(h, schemaVersion, columns);
  }

  /** The newest version's user fields named by {@code columns}, in that order. */
  private static List<Field> userFields(SchemaHistory h, List<String> columns) {
    if (columns.isEmpty()) {
      throw new LoamException(Kind.INVALID, "a projected read needs at least one column");
    }
    List<Field> out = new ArrayList<>(columns.size());
    for (String c : columns) {
      Field f = null;
      for (Field g : h.latest().fields()) {
        if (g.getName().equals(c)) {
          f = g;
        }
      }
      if (f == null) {
        throw new LoamException(
            Kind.INVALID, "no such column column=" + c + " (not a field of the stream's schema)");
      }
      if (out.contains(f)) {
        throw new LoamException(Kind.INVALID, "column named twice column=" + c);
      }
      out.add(f);
    }
    return out;
  }

  @Override
  public List<RecordData> decodeProjected(
      List<String> versions,
      ByteBuffer prefix,
      int[] fetched,
      ByteBuffer[] columnBytes,
      List<String> columns) {
    SchemaHistory h = history(versions);
    ArrowFrame f = ArrowFrame.readPrefix(prefix, false);
    try (VectorSchemaRoot root =
        ArrowBatches.loadProjected(f, fetched, columnBytes, h, ALLOCATOR)) {
      return rows(h, root, columns);
    }
  }

  @Override
  public List<List<RecordData>> decodeProjected(
      List<String> versions, ByteBuffer bytes, List<String> columns) {
    SchemaHistory h = history(versions);
    List<List<RecordData>> out = new ArrayList<>();
    for (ArrowFrame f : ArrowFrame.readAll(bytes)) {
      try (VectorSchemaRoot root = ArrowBatches.load(f, h, ALLOCATOR)) {
        out.add(rows(h, root, columns));
      }
    }
    return out;
  }

  /** Rows of a root whose vectors 0 and 1 are the system columns, values of {@code columns}. */
  private static List<RecordData> rows(
      SchemaHistory h, VectorSchemaRoot root, List<String> columns) {
    List<Field> fields = userFields(h, columns);
    RecordValues values = new RecordValues(StreamSchema.of(fields));
    VarBinaryVector keys = (VarBinaryVector) root.getVector(0);
    TimeStampVector times = (TimeStampVector) root.getVector(1);
    List<FieldVector> user = new ArrayList<>(fields.size());
    for (Field fd : fields) {
      user.add(root.getVector(fd.getName()));
    }
    List<RecordData> out = new ArrayList<>(root.getRowCount());
    for (int r = 0; r < root.getRowCount(); r++) {
      if (times.isNull(r)) {
        throw new CorruptionException("arrow batch _timestamp null at row " + r);
      }
      out.add(
          RecordData.of(times.get(r), keys.isNull(r) ? null : keys.get(r), values.write(user, r)));
    }
    return out;
  }

  /** The allocator the codec uses, for callers in this module that load vectors themselves. */
  static BufferAllocator allocator() {
    return ALLOCATOR;
  }
}
