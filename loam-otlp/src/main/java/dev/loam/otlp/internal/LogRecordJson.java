package dev.loam.otlp.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;

/**
 * Writes a LogRecord in OTLP's JSON encoding (docs/reference/otlp.md "Mapping"): protobuf's
 * canonical JSON mapping with lowerCamelCase names, fields at their default value left out, 64-bit
 * integers as decimal strings, 32-bit ones as numbers, enums as numbers, bytes as base64 — except
 * {@code traceId}/{@code spanId}, which are lowercase hex. The attributes written are the ones
 * given (the merged ones), not the record's own. Fields appear in the order of their declaration in
 * {@code logs.proto}, as protobuf's printer writes them; the tests compare the result with that
 * printer's output for every record.
 */
final class LogRecordJson {
  private static final JsonFactory FACTORY = JsonFactory.builder().build();

  private LogRecordJson() {}

  /** The UTF-8 JSON of {@code r} with {@code attributes} in place of its own. */
  static byte[] encode(LogRecord r, List<KeyValue> attributes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      if (r.getTimeUnixNano() != 0) {
        g.writeStringField("timeUnixNano", Long.toUnsignedString(r.getTimeUnixNano()));
      }
      if (r.getObservedTimeUnixNano() != 0) {
        g.writeStringField(
            "observedTimeUnixNano", Long.toUnsignedString(r.getObservedTimeUnixNano()));
      }
      if (r.getSeverityNumberValue() != 0) {
        g.writeNumberField("severityNumber", r.getSeverityNumberValue());
      }
      if (!r.getSeverityText().isEmpty()) {
        g.writeStringField("severityText", r.getSeverityText());
      }
      if (r.hasBody()) {
        g.writeFieldName("body");
        writeAnyValue(g, r.getBody());
      }
      if (!attributes.isEmpty()) {
        g.writeFieldName("attributes");
        writeKeyValues(g, attributes);
      }
      if (r.getDroppedAttributesCount() != 0) {
        g.writeNumberField(
            "droppedAttributesCount", Integer.toUnsignedLong(r.getDroppedAttributesCount()));
      }
      if (r.getFlags() != 0) {
        g.writeNumberField("flags", Integer.toUnsignedLong(r.getFlags()));
      }
      if (!r.getTraceId().isEmpty()) {
        g.writeStringField("traceId", Hex.encode(r.getTraceId().toByteArray()));
      }
      if (!r.getSpanId().isEmpty()) {
        g.writeStringField("spanId", Hex.encode(r.getSpanId().toByteArray()));
      }
      if (!r.getEventName().isEmpty()) {
        g.writeStringField("eventName", r.getEventName());
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** The OTLP JSON of one AnyValue, as text (a key attribute that is an array or a kvlist). */
  static String anyValueText(AnyValue v) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(64);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      writeAnyValue(g, v);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(java.nio.charset.StandardCharsets.UTF_8);
  }

  private static void writeKeyValues(JsonGenerator g, List<KeyValue> kvs) throws IOException {
    g.writeStartArray();
    for (KeyValue kv : kvs) {
      g.writeStartObject();
      if (!kv.getKey().isEmpty()) {
        g.writeStringField("key", kv.getKey());
      }
      if (kv.hasValue()) {
        g.writeFieldName("value");
        writeAnyValue(g, kv.getValue());
      }
      if (kv.getKeyStrindex() != 0) {
        g.writeNumberField("keyStrindex", kv.getKeyStrindex());
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  // A oneof member has presence: it is written even at its default value ("", 0, false).
  private static void writeAnyValue(JsonGenerator g, AnyValue v) throws IOException {
    g.writeStartObject();
    switch (v.getValueCase()) {
      case STRING_VALUE -> g.writeStringField("stringValue", v.getStringValue());
      case BOOL_VALUE -> g.writeBooleanField("boolValue", v.getBoolValue());
      case INT_VALUE -> g.writeStringField("intValue", Long.toString(v.getIntValue()));
      case DOUBLE_VALUE -> {
        g.writeFieldName("doubleValue");
        writeDouble(g, v.getDoubleValue());
      }
      case ARRAY_VALUE -> {
        g.writeFieldName("arrayValue");
        g.writeStartObject();
        if (v.getArrayValue().getValuesCount() > 0) {
          g.writeFieldName("values");
          g.writeStartArray();
          for (AnyValue e : v.getArrayValue().getValuesList()) {
            writeAnyValue(g, e);
          }
          g.writeEndArray();
        }
        g.writeEndObject();
      }
      case KVLIST_VALUE -> {
        g.writeFieldName("kvlistValue");
        g.writeStartObject();
        if (v.getKvlistValue().getValuesCount() > 0) {
          g.writeFieldName("values");
          writeKeyValues(g, v.getKvlistValue().getValuesList());
        }
        g.writeEndObject();
      }
      case BYTES_VALUE ->
          g.writeStringField(
              "bytesValue", Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray()));
      case STRING_VALUE_STRINDEX ->
          g.writeNumberField("stringValueStrindex", v.getStringValueStrindex());
      case VALUE_NOT_SET -> {}
    }
    g.writeEndObject();
  }

  /** As protobuf's printer: NaN and the infinities as strings, others as Java prints them. */
  private static void writeDouble(JsonGenerator g, double d) throws IOException {
    if (Double.isNaN(d)) {
      g.writeString("NaN");
    } else if (Double.isInfinite(d)) {
      g.writeString(d > 0 ? "Infinity" : "-Infinity");
    } else {
      g.writeRawValue(Double.toString(d));
    }
  }
}
