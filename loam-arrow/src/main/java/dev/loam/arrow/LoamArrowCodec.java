package dev.loam.arrow;

import dev.loam.arrow.format.ArrowFrame;
import dev.loam.core.arrow.ArrowCodec;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

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

  /** The allocator the codec uses, for callers in this module that load vectors themselves. */
  static BufferAllocator allocator() {
    return ALLOCATOR;
  }
}
