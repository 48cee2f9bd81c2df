package dev.loam.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The test oracle for stored values: protobuf's own JSON printer ({@code JsonFormat}, enums as
 * numbers) applied to the LogRecord with its attributes merged as docs/reference/otlp.md says,
 * normalized to OTLP JSON (base64 trace and span ids rewritten as hex). Written from the document,
 * apart from the code under test.
 */
final class Oracle {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFormat.Printer PRINTER =
      JsonFormat.printer().printingEnumsAsInts().omittingInsignificantWhitespace();

  private Oracle() {}

  /** Record, then scope, then scope name/version, then resource: a key is added only once. */
  static List<KeyValue> merge(LogRecord r, InstrumentationScope scope, Resource resource) {
    List<KeyValue> out = new ArrayList<>(r.getAttributesList());
    Set<String> keys = new HashSet<>();
    out.forEach(kv -> keys.add(kv.getKey()));
    for (KeyValue kv : scope.getAttributesList()) {
      if (keys.add(kv.getKey())) {
        out.add(kv);
      }
    }
    if (!scope.getName().isEmpty() && keys.add("otel.scope.name")) {
      out.add(string("otel.scope.name", scope.getName()));
    }
    if (!scope.getVersion().isEmpty() && keys.add("otel.scope.version")) {
      out.add(string("otel.scope.version", scope.getVersion()));
    }
    for (KeyValue kv : resource.getAttributesList()) {
      if (keys.add(kv.getKey())) {
        out.add(kv);
      }
    }
    return out;
  }

  static KeyValue string(String k, String v) {
    return KeyValue.newBuilder()
        .setKey(k)
        .setValue(AnyValue.newBuilder().setStringValue(v))
        .build();
  }

  /** The expected value of a stored record, as a JSON tree. */
  static JsonNode expected(LogRecord r, InstrumentationScope scope, Resource resource) {
    LogRecord merged =
        r.toBuilder().clearAttributes().addAllAttributes(merge(r, scope, resource)).build();
    return printed(merged);
  }

  /** {@code JsonFormat}'s output for a LogRecord, ids rewritten as hex. */
  static JsonNode printed(LogRecord r) {
    try {
      ObjectNode tree = (ObjectNode) JSON.readTree(PRINTER.print(r));
      for (String f : List.of("traceId", "spanId")) {
        if (tree.has(f)) {
          byte[] b = Base64.getDecoder().decode(tree.get(f).textValue());
          tree.set(f, TextNode.valueOf(HexFormat.of().formatHex(b)));
        }
      }
      return tree;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads a stored value back into a LogRecord with protobuf's parser (ids from hex). */
  static LogRecord parse(byte[] value) {
    try {
      ObjectNode tree = (ObjectNode) JSON.readTree(value);
      for (String f : List.of("traceId", "spanId")) {
        if (tree.has(f)) {
          byte[] b = HexFormat.of().parseHex(tree.get(f).textValue());
          tree.set(f, TextNode.valueOf(Base64.getEncoder().encodeToString(b)));
        }
      }
      LogRecord.Builder b = LogRecord.newBuilder();
      JsonFormat.parser().merge(JSON.writeValueAsString(tree), b);
      return b.build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonNode tree(byte[] value) {
    try {
      return JSON.readTree(value);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The string value of the first attribute named {@code key} in a stored value, or null. */
  static String attribute(JsonNode value, String key) {
    JsonNode attrs = value.get("attributes");
    if (attrs instanceof ArrayNode a) {
      for (JsonNode kv : a) {
        if (key.equals(kv.path("key").asText())) {
          JsonNode v = kv.path("value");
          return v.has("stringValue") ? v.get("stringValue").asText() : v.path("intValue").asText();
        }
      }
    }
    return null;
  }
}
