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
