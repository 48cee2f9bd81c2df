package dev.loam.arrow;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.loam.wal.batch.RecordData;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Random schemas and rows of every supported type, nulls included, for the property tests. */
final class ArrowArbitraries {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private ArrowArbitraries() {}

  /** A schema of 1..12 fields of random types and nullability. */
  static StreamSchema schema(Random r) {
    int n = 1 + r.nextInt(12);
    List<Field> fields = new ArrayList<>();
    ColumnType[] types = ColumnType.values();
    for (int i = 0; i < n; i++) {
      ColumnType t = types[r.nextInt(types.length)];
      fields.add(
          new Field(
              "f" + i + "_" + t.name().toLowerCase(),
              new FieldType(r.nextBoolean(), t.arrowType(), null),
              null));
    }
    return StreamSchema.of(fields);
  }

  /** A random value of the type, as a Java object (null only when nullable and chosen). */
  static Object value(Random r, ColumnType t, boolean nullable) {
    if (nullable && r.nextInt(4) == 0) {
      return null;
    }
    return switch (t) {
      case BOOL -> r.nextBoolean();
      case INT8 -> (long) (byte) r.nextInt();
      case INT16 -> (long) (short) r.nextInt();
      case INT32 -> (long) r.nextInt();
      case INT64, TIMESTAMP_NS, TIMESTAMP_US, TIMESTAMP_MS -> edge(r);
      case FLOAT32 -> {
        float f = Float.intBitsToFloat(r.nextInt());
        yield Float.isFinite(f) ? f : (float) r.nextGaussian();
      }
      case FLOAT64 -> {
        double d = Double.longBitsToDouble(r.nextLong());
        yield Double.isFinite(d) ? d : r.nextGaussian();
      }
      case UTF8 -> text(r);
      case BINARY -> {
        byte[] b = new byte[r.nextInt(20)];
        r.nextBytes(b);
        yield b;
      }
      case DATE -> LocalDate.ofEpochDay(r.nextInt(5_000_000) - 2_500_000);
    };
  }

  private static long edge(Random r) {
    return switch (r.nextInt(5)) {
      case 0 -> Long.MIN_VALUE;
      case 1 -> Long.MAX_VALUE;
      case 2 -> 0L;
      default -> r.nextLong();
    };
  }

  private static String text(Random r) {
    StringBuilder sb = new StringBuilder();
    int n = r.nextInt(12);
    for (int i = 0; i < n; i++) {
      switch (r.nextInt(4)) {
        case 0 -> sb.append((char) ('a' + r.nextInt(26)));
        case 1 -> sb.append("\u00e9");
        case 2 -> sb.appendCodePoint(0x1F600 + r.nextInt(10));
        default -> sb.append("\"\\\n");
      }
    }
    return sb.toString();
  }

  /** The values of one row, in schema order. */
  static List<Object> row(Random r, StreamSchema s) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < s.fields().size(); i++) {
      out.add(value(r, s.types().get(i), s.fields().get(i).isNullable()));
    }
    return out;
  }

  /** A row's JSON object, fields in random order, nulls written or left out at random. */
  static byte[] json(Random r, StreamSchema s, List<Object> row) {
    ObjectNode o = MAPPER.createObjectNode();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < row.size(); i++) {
      order.add(i);
    }
    Collections.shuffle(order, r);
    for (int i : order) {
      String name = s.fields().get(i).getName();
      Object v = row.get(i);
      if (v == null) {
        if (r.nextBoolean()) {
          o.putNull(name);
        }
        continue;
      }
      switch (s.types().get(i)) {
        case BOOL -> o.put(name, (Boolean) v);
        case FLOAT32 -> o.put(name, (Float) v);
        case FLOAT64 -> o.put(name, (Double) v);
        case UTF8 -> o.put(name, (String) v);
        case BINARY -> o.put(name, Base64.getEncoder().encodeToString((byte[]) v));
        case DATE -> o.put(name, v.toString());
        default -> o.put(name, (Long) v);
      }
    }
    try {
      return MAPPER.writeValueAsBytes(o);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Records of random rows; keys null or random, timestamps random. */
  static List<RecordData> records(Random r, StreamSchema s, List<List<Object>> rows) {
    List<RecordData> out = new ArrayList<>();
    for (List<Object> row : rows) {
      byte[] key =
          r.nextInt(3) == 0 ? null : ("k" + r.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
      out.add(RecordData.of(r.nextLong() >>> 20, key, json(r, s, row)));
    }
    return out;
  }
}
