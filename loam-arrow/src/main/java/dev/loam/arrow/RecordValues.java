package dev.loam.arrow;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.arrow.vector.types.pojo.Field;

/**
 * A record value's JSON object and an arrow stream's columns (docs/reference/arrow.md "Record
 * values"): parses one value straight into the vectors' row, refusing what does not match the
 * schema with the field and the reason, and writes a row back as JSON in the canonical form (every
 * field of the schema, in order, nulls as {@code null}).
 */
final class RecordValues {
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNestingDepth(64).maxNumberLength(400).build())
          .build();

  private static final BigInteger LONG_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

  private final List<Field> fields;
  private final List<ColumnType> types;
  private final Map<String, Integer> index = new HashMap<>();

  RecordValues(StreamSchema schema) {
    this.fields = schema.fields();
    this.types = schema.types();
    for (int i = 0; i < fields.size(); i++) {
      index.put(fields.get(i).getName(), i);
    }
  }

  /**
   * Parses {@code value} (a JSON object) into row {@code row} of {@code vectors} (the user columns,
   * in schema order).
   *
   * @throws LoamException INVALID naming the record, the field and the reason
   */
  void parseInto(int record, byte[] value, List<FieldVector> vectors, int row) {
    if (value == null) {
      throw refused(record, null, "the value is null (an arrow stream's records are JSON objects)");
    }
    boolean[] seen = new boolean[fields.size()];
    try (JsonParser p = JSON.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw refused(record, null, "the value is not a JSON object");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        Integer i = index.get(name);
        if (i == null) {
          throw refused(record, name, "not in the stream's schema");
        }
        seen[i] = true;
        p.nextToken();
        set(record, i, p, vectors.get(i), row);
      }
      if (t != JsonToken.END_OBJECT) {
        throw refused(record, null, "the value is not a JSON object");
      }
      if (p.nextToken() != null) {
        throw refused(record, null, "trailing content after the JSON object");
      }
    } catch (com.fasterxml.jackson.core.exc.StreamConstraintsException e) {
      throw refused(record, null, "JSON too deep or a number too long: " + e.getOriginalMessage());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw refused(record, null, "not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      // Reading from a byte array fails only on the bytes themselves (an encoding Jackson
      // detects and cannot decode, such as malformed UTF-32).
      throw refused(record, null, "not valid JSON: " + e.getMessage());
    }
    for (int i = 0; i < seen.length; i++) {
      if (!seen[i]) {
        if (!fields.get(i).isNullable()) {
          throw refused(record, fields.get(i).getName(), "missing, and the field is not nullable");
        }
        setNull(vectors.get(i), row);
      }
    }
  }

  private static LoamException refused(int record, String field, String reason) {
    return new LoamException(
        Kind.INVALID,
        "record does not match the arrow schema: "
            + (field == null ? "" : "field=" + field + ": ")
            + reason
            + " record="
            + record);
  }

  private void set(int record, int i, JsonParser p, FieldVector v, int row) throws IOException {
    Field f = fields.get(i);
    String name = f.getName();
    JsonToken t = p.currentToken();
    if (t == JsonToken.VALUE_NULL) {
      if (!f.isNullable()) {
        throw refused(record, name, "null, and the field is not nullable");
      }
      setNull(v, row);
      return;
    }
    ColumnType type = types.get(i);
    switch (type) {
      case BOOL -> {
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
          throw refused(record, name, "expected true or false, got " + describe(t));
        }
        ((BitVector) v).setSafe(row, t == JsonToken.VALUE_TRUE ? 1 : 0);
      }
      case INT8 -> ((TinyIntVector) v).setSafe(row, (byte) integer(record, name, p, 8));
      case INT16 -> ((SmallIntVector) v).setSafe(row, (short) integer(record, name, p, 16));
      case INT32 -> ((IntVector) v).setSafe(row, (int) integer(record, name, p, 32));
      case INT64 -> ((BigIntVector) v).setSafe(row, integer(record, name, p, 64));
      case TIMESTAMP_MS, TIMESTAMP_US, TIMESTAMP_NS ->
          ((TimeStampVector) v).setSafe(row, integer(record, name, p, 64));
      case FLOAT32 -> {
        number(record, name, t);
        float x = Float.parseFloat(p.getText());
        if (Float.isInfinite(x)) {
          throw refused(record, name, "out of float32 range: " + p.getText());
        }
        ((Float4Vector) v).setSafe(row, x);
      }
      case FLOAT64 -> {
        number(record, name, t);
        double x = Double.parseDouble(p.getText());
        if (Double.isInfinite(x)) {
          throw refused(record, name, "out of float64 range: " + p.getText());
        }
        ((Float8Vector) v).setSafe(row, x);
      }
      case UTF8 -> {
        string(record, name, t, "a string");
        ((VarCharVector) v).setSafe(row, utf8(record, name, p.getText()));
      }
      case BINARY -> {
        string(record, name, t, "a base64 string");
        byte[] b;
        try {
          b = Base64.getDecoder().decode(p.getText());
        } catch (IllegalArgumentException e) {
          throw refused(record, name, "not base64: " + e.getMessage());
        }
        ((VarBinaryVector) v).setSafe(row, b);
      }
      case DATE -> {
        string(record, name, t, "a date string YYYY-MM-DD");
        long day;
        try {
          day = LocalDate.parse(p.getText()).toEpochDay();
        } catch (DateTimeParseException e) {
          throw refused(record, name, "not a date YYYY-MM-DD: " + p.getText());
        }
        if (day < Integer.MIN_VALUE || day > Integer.MAX_VALUE) {
          throw refused(record, name, "date out of range: " + p.getText());
        }
        ((DateDayVector) v).setSafe(row, (int) day);
      }
    }
  }

  private static void number(int record, String name, JsonToken t) {
    if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT) {
      throw refused(record, name, "expected a number, got " + describe(t));
    }
  }

  private static void string(int record, String name, JsonToken t, String what) {
    if (t != JsonToken.VALUE_STRING) {
      throw refused(record, name, "expected " + what + ", got " + describe(t));
    }
  }

  private static long integer(int record, String name, JsonParser p, int bits) throws IOException {
    JsonToken t = p.currentToken();
    if (t != JsonToken.VALUE_NUMBER_INT) {
      throw refused(record, name, "expected an integer, got " + describe(t));
    }
    BigInteger x = p.getBigIntegerValue();
    BigInteger min = bits == 64 ? LONG_MIN : BigInteger.ONE.shiftLeft(bits - 1).negate();
    BigInteger max =
        bits == 64 ? LONG_MAX : BigInteger.ONE.shiftLeft(bits - 1).subtract(BigInteger.ONE);
    if (x.compareTo(min) < 0 || x.compareTo(max) > 0) {
      throw refused(record, name, "out of int" + bits + " range: " + x);
    }
    return x.longValue();
  }

  private static byte[] utf8(int record, String name, String s) {
    try {
      ByteBuffer b =
          StandardCharsets.UTF_8
              .newEncoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .encode(CharBuffer.wrap(s));
      byte[] out = new byte[b.remaining()];
      b.get(out);
      return out;
    } catch (CharacterCodingException e) {
      throw refused(record, name, "not valid Unicode (an unpaired surrogate)");
    }
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT -> "an integer";
      case VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> t.toString();
    };
  }

  private static void setNull(FieldVector v, int row) {
    if (v instanceof org.apache.arrow.vector.BaseFixedWidthVector f) {
      f.setNull(row);
    } else if (v instanceof org.apache.arrow.vector.BaseVariableWidthVector w) {
      w.setNull(row);
    } else {
      throw new IllegalStateException("unsupported vector " + v.getClass());
    }
  }

  /**
   * Row {@code row} of {@code vectors} (this schema's user columns, in order; a null entry is a
   * column the batch does not have, written as null) as a canonical JSON object.
   */
  byte[] write(List<FieldVector> vectors, int row) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.writeStartObject();
      for (int i = 0; i < fields.size(); i++) {
        g.writeFieldName(fields.get(i).getName());
        FieldVector v = vectors.get(i);
        if (v == null || v.isNull(row)) {
          g.writeNull();
          continue;
        }
        switch (types.get(i)) {
          case BOOL -> g.writeBoolean(((BitVector) v).get(row) != 0);
          case INT8 -> g.writeNumber(((TinyIntVector) v).get(row));
          case INT16 -> g.writeNumber(((SmallIntVector) v).get(row));
          case INT32 -> g.writeNumber(((IntVector) v).get(row));
          case INT64 -> g.writeNumber(((BigIntVector) v).get(row));
          case TIMESTAMP_MS, TIMESTAMP_US, TIMESTAMP_NS ->
              g.writeNumber(((TimeStampVector) v).get(row));
          case FLOAT32 -> g.writeNumber(Float.toString(((Float4Vector) v).get(row)));
          case FLOAT64 -> g.writeNumber(Double.toString(((Float8Vector) v).get(row)));
          case UTF8 ->
              g.writeString(new String(((VarCharVector) v).get(row), StandardCharsets.UTF_8));
          case BINARY ->
              g.writeString(Base64.getEncoder().encodeToString(((VarBinaryVector) v).get(row)));
          case DATE -> g.writeString(LocalDate.ofEpochDay(((DateDayVector) v).get(row)).toString());
        }
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
