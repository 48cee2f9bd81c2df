package dev.loam.arrow;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One version of an arrow stream's schema (docs/reference/arrow.md): the user's columns, given as
 * Arrow's schema JSON, validated to flat supported types with unique names. Every stored batch also
 * has two system columns ahead of them, {@value #KEY} (binary, nullable: the record key) and
 * {@value #TIMESTAMP} (timestamp in milliseconds, UTC, not null: the record timestamp); {@link
 * #batchSchema()} is the schema including them.
 */
public final class StreamSchema {
  /** The system column holding each record's key. */
  public static final String KEY = "_key";

  /** The system column holding each record's timestamp. */
  public static final String TIMESTAMP = "_timestamp";

  /** The number of system columns ahead of the user's. */
  public static final int SYSTEM_COLUMNS = 2;

  /** Whether {@code name} is one of the system columns every batch holds first. */
  public static boolean isSystemColumn(String name) {
    return KEY.equals(name) || TIMESTAMP.equals(name);
  }

  /** The most user columns a schema may have. */
  public static final int MAX_COLUMNS = 1024;

  /** The longest schema JSON accepted, in characters. */
  public static final int MAX_JSON_LENGTH = 256 * 1024;

  private static final Field KEY_FIELD =
      new Field(KEY, FieldType.nullable(ArrowType.Binary.INSTANCE), null);
  private static final Field TIMESTAMP_FIELD =
      new Field(
          TIMESTAMP,
          FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC")),
          null);

  private final List<Field> fields;
  private final List<ColumnType> types;
  private final Schema batchSchema;

  private StreamSchema(List<Field> fields, List<ColumnType> types) {
    this.fields = List.copyOf(fields);
    this.types = List.copyOf(types);
    List<Field> all = new ArrayList<>(fields.size() + SYSTEM_COLUMNS);
    all.add(KEY_FIELD);
    all.add(TIMESTAMP_FIELD);
    all.addAll(fields);
    this.batchSchema = new Schema(all);
  }

  /**
   * Parses and validates Arrow's schema JSON ({@code {"fields":[{"name":...,"nullable":...,
   * "type":{...},"children":[]}]}}).
   *
   * @throws LoamException INVALID naming what is wrong: not JSON, not a schema, a field's name or
   *     type, a duplicate, metadata, dictionary encoding, nesting, too many columns
   */
  public static StreamSchema fromJson(String json) {
    Objects.requireNonNull(json, "json");
    if (json.length() > MAX_JSON_LENGTH) {
      throw new LoamException(
          Kind.INVALID,
          "arrow schema json too long: " + json.length() + " chars, limit " + MAX_JSON_LENGTH);
    }
    Schema s;
    try {
      s = Schema.fromJSON(json);
    } catch (IOException | RuntimeException e) {
      throw new LoamException(
          Kind.INVALID, "arrow schema json invalid: " + firstLine(e.getMessage()), e);
    }
    if (s == null) {
      throw new LoamException(Kind.INVALID, "arrow schema json invalid: null");
    }
    if (s.getCustomMetadata() != null && !s.getCustomMetadata().isEmpty()) {
      throw new LoamException(Kind.INVALID, "arrow schema metadata is not supported");
    }
    return of(s.getFields());
  }

  private static String firstLine(String m) {
    if (m == null) {
      return "unreadable";
    }
    int nl = m.indexOf('\n');
    String line = nl < 0 ? m : m.substring(0, nl);
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }

  /**
   * A schema of these user fields, validated as {@link #fromJson} does.
   *
   * @throws LoamException INVALID naming the field and the reason
   */
  public static StreamSchema of(List<Field> fields) {
    if (fields == null || fields.isEmpty()) {
      throw new LoamException(Kind.INVALID, "arrow schema has no fields");
    }
    if (fields.size() > MAX_COLUMNS) {
      throw new LoamException(
          Kind.INVALID, "arrow schema has " + fields.size() + " fields, limit " + MAX_COLUMNS);
    }
    Set<String> names = new HashSet<>();
    List<ColumnType> types = new ArrayList<>();
    List<Field> clean = new ArrayList<>();
    for (Field f : fields) {
      String name = f.getName();
      if (name == null || name.isEmpty() || name.length() > 255) {
        throw new LoamException(
            Kind.INVALID, "arrow schema field name must be 1 to 255 characters: " + name);
      }
      if (name.equals(KEY) || name.equals(TIMESTAMP)) {
        throw new LoamException(
            Kind.INVALID, "arrow schema field=" + name + ": the name is a system column's");
      }
      if (!names.add(name)) {
        throw new LoamException(Kind.INVALID, "arrow schema field=" + name + ": duplicate name");
      }
      if (f.getDictionary() != null) {
        throw new LoamException(
            Kind.INVALID, "arrow schema field=" + name + ": dictionary encoding is not supported");
      }
      if (!f.getChildren().isEmpty()) {
        throw new LoamException(
            Kind.INVALID, "arrow schema field=" + name + ": nested fields are not supported");
      }
      if (f.getMetadata() != null && !f.getMetadata().isEmpty()) {
        throw new LoamException(
            Kind.INVALID, "arrow schema field=" + name + ": field metadata is not supported");
      }
      ColumnType t = ColumnType.of(name, f.getType());
      types.add(t);
      clean.add(new Field(name, new FieldType(f.isNullable(), f.getType(), null, null), null));
    }
    return new StreamSchema(clean, types);
  }

  /**
   * Checks that {@code next} is a valid evolution of this schema: every field of this one, in the
   * same order with the same name, type and nullability, followed by at least one new nullable
   * field.
   *
   * @throws LoamException INVALID naming the field and the reason otherwise
   */
  public void checkEvolvesTo(StreamSchema next) {
    Objects.requireNonNull(next, "next");
    for (int i = 0; i < fields.size(); i++) {
      Field old = fields.get(i);
      if (i >= next.fields.size()) {
        throw new LoamException(
            Kind.INVALID,
            "incompatible schema change field="
                + old.getName()
                + ": removed (fields may only be added)");
      }
      Field now = next.fields.get(i);
      if (!now.getName().equals(old.getName())) {
        throw new LoamException(
            Kind.INVALID,
            "incompatible schema change field="
                + old.getName()
                + ": renamed, removed or moved (position "
                + i
                + " now holds "
                + now.getName()
                + "; fields may only be added at the end)");
      }
      if (!now.getType().equals(old.getType())) {
        throw new LoamException(
            Kind.INVALID,
            "incompatible schema change field="
                + old.getName()
                + ": type changed from "
                + old.getType()
                + " to "
                + now.getType());
      }
      if (now.isNullable() != old.isNullable()) {
        throw new LoamException(
            Kind.INVALID,
            "incompatible schema change field="
                + old.getName()
                + ": nullability changed from "
                + old.isNullable()
                + " to "
                + now.isNullable());
      }
    }
    if (next.fields.size() == fields.size()) {
      throw new LoamException(
          Kind.INVALID, "schema change adds no field (the new version equals the current one)");
    }
    for (int i = fields.size(); i < next.fields.size(); i++) {
      Field added = next.fields.get(i);
      if (!added.isNullable()) {
        throw new LoamException(
            Kind.INVALID,
            "incompatible schema change field="
                + added.getName()
                + ": an added field must be nullable (older batches have no value for it)");
      }
    }
  }

  /** The user's fields, in order. */
  public List<Field> fields() {
    return fields;
  }

  /** The user's column types, in order. */
  public List<ColumnType> types() {
    return types;
  }

  /** The schema of stored batches: the system columns, then the user's. */
  public Schema batchSchema() {
    return batchSchema;
  }

  /** The user schema as Arrow's schema JSON (a canonical form: same schema, same text). */
  public String toJson() {
    return new Schema(fields).toJson();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StreamSchema s && s.fields.equals(fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  @Override
  public String toString() {
    return "StreamSchema" + fields;
  }
}
