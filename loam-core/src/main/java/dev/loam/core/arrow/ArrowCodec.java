package dev.loam.core.arrow;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The arrow encoding as the node uses it (docs/reference/arrow.md): schema checks, records to one
 * arrow batch frame per append, and frames back to records. The implementation is in the {@code
 * loam-arrow} module, found with {@link ServiceLoader}, so that a host without arrow streams does
 * not carry Apache Arrow; without it, creating or using an arrow stream is INVALID naming the
 * missing module. Schemas are passed as the stream's schema texts, version 1 first (what the
 * metastore stores); implementations may cache their parsed form.
 */
public interface ArrowCodec {
  /**
   * Parses and validates a schema; returns its canonical text (what the metastore stores).
   *
   * @throws LoamException INVALID naming what is wrong
   */
  String checkSchema(String json);

  /**
   * Checks that {@code json} is a valid next version after {@code versions}; returns its canonical
   * text.
   *
   * @throws LoamException INVALID naming the field and the reason
   */
  String checkEvolution(List<String> versions, String json);

  /**
   * One frame holding {@code records}, under the newest version.
   *
   * @throws LoamException INVALID naming the record, field and reason for a record that does not
   *     match
   */
  byte[] encode(List<String> versions, List<RecordData> records);

  /**
   * The records of every frame in {@code bytes} (whole frames back to back), one list per frame in
   * order, each record's value the canonical JSON object of the newest version's fields.
   *
   * @throws dev.loam.error.CorruptionException if a frame is damaged
   */
  List<List<RecordData>> decode(List<String> versions, ByteBuffer bytes);

  /**
   * One frame as a segment's batch index describes it (arrow-batch-v1.md): its size in bytes, its
   * record count and its max_timestamp.
   */
  record FrameSummary(int size, int recordCount, long maxTimestamp) {}

  /**
   * Verifies every frame in {@code bytes} (whole frames back to back: header CRC and every column's
   * CRC) and describes each, in order; the segmenter calls it before copying frames into a segment.
   *
   * @throws dev.loam.error.CorruptionException if a frame is damaged
   */
  List<FrameSummary> frames(ByteBuffer bytes);

  /**
   * The column index (arrow-batch-v1.md "Column index") of the frames in {@code bytes} (whole,
   * verified frames back to back: an arrow segment's data region).
   *
   * @throws dev.loam.error.CorruptionException if a frame's prefix is damaged
   */
  byte[] columnIndex(ByteBuffer bytes);

  /**
   * One column index entry (arrow-batch-v1.md "Column index"): the frame's schema version, the
   * bytes before its body, and each column's body length in schema order.
   */
  record FrameColumns(int schemaVersion, int prefixLength, int[] columnLengths) {}

  /**
   * Parses an arrow segment's column index of {@code count} entries (its CRC is the segment
   * footer's index CRC, checked by the caller).
   *
   * @throws dev.loam.error.CorruptionException naming the field on any structural mismatch
   */
  List<FrameColumns> parseColumnIndex(ByteBuffer columnIndex, int count);

  /**
   * The columns a projected read of {@code columns} (user columns of the newest version) fetches
   * from a frame of {@code schemaVersion}: their positions in that version's batch schema,
   * increasing, the system columns {@code _key} and {@code _timestamp} always included and columns
   * the version lacks left out.
   *
   * @throws LoamException INVALID naming a column the newest version does not have, or for an empty
   *     or repeating list
   */
  int[] projectedColumns(List<String> versions, int schemaVersion, List<String> columns);

  /**
   * The records of one frame read in part: {@code prefix} holds the frame's bytes before its body
   * (header CRC checked here), {@code columnBytes[i]} column {@code fetched[i]}'s body bytes (each
   * checked against its CRC here), {@code fetched} as {@link #projectedColumns} returned it. Each
   * record's value is the JSON object of {@code columns}, in that order (null for a column the
   * frame's version lacks).
   *
   * @throws dev.loam.error.CorruptionException if a CRC fails or the bytes are not a batch
   */
  List<RecordData> decodeProjected(
      List<String> versions,
      ByteBuffer prefix,
      int[] fetched,
      ByteBuffer[] columnBytes,
      List<String> columns);

  /**
   * As {@link #decode}, each record's value the JSON object of {@code columns} only, in that order.
   *
   * @throws dev.loam.error.CorruptionException if a frame is damaged
   */
  List<List<RecordData>> decodeProjected(
      List<String> versions, ByteBuffer bytes, List<String> columns);

  /** The implementation on the class path, loaded once. */
  static ArrowCodec get() {
    ArrowCodec c = Holder.CODEC;
    if (c == null) {
      throw new LoamException(
          Kind.INVALID,
          "arrow streams need the loam-arrow module on the class path (dev.loam:loam-arrow)");
    }
    return c;
  }

  /** Whether an implementation is on the class path. */
  static boolean available() {
    return Holder.CODEC != null;
  }

  /** Lazy holder of the loaded implementation. */
  final class Holder {
    static final ArrowCodec CODEC =
        ServiceLoader.load(ArrowCodec.class, ArrowCodec.class.getClassLoader())
            .findFirst()
            .orElse(null);

    private Holder() {}
  }
}
