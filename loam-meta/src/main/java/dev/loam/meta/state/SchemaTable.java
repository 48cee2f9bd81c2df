package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.AddStreamSchema;
import dev.loam.meta.command.CreateArrowStream;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The schema versions of arrow streams (docs/reference/arrow.md, metastore-snapshot.md version 12):
 * per stream id, every schema text ever registered, version 1 first, never removed while the stream
 * exists. A stream with no entry is a kafka-encoded stream. The texts are Arrow schema JSON that
 * the proposing node validated (loam-meta does not parse them); this table checks only their size
 * and, for a new version, that the proposer saw the current version count.
 */
final class SchemaTable {
  /** The longest schema text, in UTF-16 chars (the same limit the node's parser applies). */
  static final int MAX_SCHEMA_CHARS = 256 * 1024;

  /** The most versions a stream may have (a stored batch names its version in a u16). */
  static final int MAX_VERSIONS = 0xffff;

  private final Catalog catalog;
  private final TreeMap<Long, List<String>> schemas = new TreeMap<>();

  SchemaTable(Catalog catalog) {
    this.catalog = catalog;
  }

  private static Outcome.Rejected checkText(String json, String where) {
    if (json == null || json.isEmpty()) {
      return rejected(RejectReason.INVALID, "arrow schema is required" + where);
    }
    if (json.length() > MAX_SCHEMA_CHARS) {
      return rejected(
          RejectReason.INVALID,
          "arrow schema too long chars=" + json.length() + " limit=" + MAX_SCHEMA_CHARS + where);
    }
    return null;
  }

  Outcome createArrowStream(CreateArrowStream c) {
    Outcome.Rejected bad =
        checkText(c.schemaJson(), " namespace=" + c.namespace() + " stream=" + c.name());
    if (bad != null) {
      return bad;
    }
    Outcome o =
        catalog.createStream(new CreateStream(c.origin(), c.namespace(), c.name(), c.config()));
    if (o instanceof Outcome.StreamCreated created) {
      List<String> versions = new ArrayList<>();
      versions.add(c.schemaJson());
      schemas.put(created.stream().id(), versions);
    }
    return o;
  }

  Outcome addSchema(AddStreamSchema c) {
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    Catalog.StreamState s = catalog.streamNamed(c.namespace(), c.name());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream" + where);
    }
    List<String> versions = schemas.get(s.info.id());
    if (versions == null) {
      return rejected(
          RejectReason.INVALID, "stream has no arrow schema (it is not an arrow stream)" + where);
    }
    Outcome.Rejected bad = checkText(c.schemaJson(), where);
    if (bad != null) {
      return bad;
    }
    if (c.expectedVersions() != versions.size()) {
      return rejected(
          RejectReason.CONFLICT,
          "schema changed since it was read"
              + where
              + " expectedVersions="
              + c.expectedVersions()
              + " versions="
              + versions.size());
    }
    if (versions.size() >= MAX_VERSIONS) {
      return rejected(RejectReason.INVALID, "stream has the most schema versions" + where);
    }
    versions.add(c.schemaJson());
    return new Outcome.SchemaAdded(s.info.id(), versions.size());
  }

  /** The stream's schema texts, version 1 first; empty for a kafka-encoded stream. */
  List<String> versions(long streamId) {
    List<String> v = schemas.get(streamId);
    return v == null ? List.of() : List.copyOf(v);
  }

  /** Deleting a stream drops its schemas. */
  void dropStream(long streamId) {
    schemas.remove(streamId);
  }

  /** No arrow stream: nothing for a version 12 section to hold. */
  boolean isDefault() {
    return schemas.isEmpty();
  }

  // ---- snapshot section (version 12)

  void write(BinaryWriter w) {
    w.i32(schemas.size());
    for (Map.Entry<Long, List<String>> e : schemas.entrySet()) {
      w.i64(e.getKey()).i32(e.getValue().size());
      for (String s : e.getValue()) {
        w.string(s);
      }
    }
  }

  /** Reads the section {@link #write} wrote (at least one stream); the catalog must be restored. */
  void read(BinaryReader r, int version) {
    int n = r.count("schemas.count", 8 + 4 + 4 + 1);
    if (n == 0 && version == 12) {
      throw r.corrupt("schemas.count", "a version 12 snapshot holds at least one arrow stream");
    }
    long prev = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      long streamId = r.i64("schemas.streamId");
      if (i > 0 && streamId <= prev) {
        throw r.corrupt("schemas.streamId", "streams must be sorted and unique");
      }
      prev = streamId;
      if (catalog.streamsById().get(streamId) == null) {
        throw r.corrupt("schemas.streamId", "unknown stream streamId=" + streamId);
      }
      int versions = r.count("schemas.versions", 4 + 1);
      if (versions < 1 || versions > MAX_VERSIONS) {
        throw r.corrupt(
            "schemas.versions", "versions must be 1.." + MAX_VERSIONS + " versions=" + versions);
      }
      List<String> texts = new ArrayList<>(versions);
      for (int v = 0; v < versions; v++) {
        String s = r.string("schemas.schema");
        if (s.isEmpty() || s.length() > MAX_SCHEMA_CHARS) {
          throw r.corrupt("schemas.schema", "schema text length=" + s.length());
        }
        texts.add(s);
      }
      schemas.put(streamId, texts);
    }
  }
}
