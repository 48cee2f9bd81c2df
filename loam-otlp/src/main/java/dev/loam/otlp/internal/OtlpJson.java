package dev.loam.otlp.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.io.IOException;
import java.util.Base64;

/**
 * Reads an OTLP JSON {@code ExportLogsServiceRequest} (docs/reference/otlp.md "Reading JSON
 * bodies"). OTLP JSON is protobuf's canonical JSON mapping with one difference: {@code traceId} and
 * {@code spanId} are hex, not base64. So the body is read into a tree (bounded nesting), every
 * LogRecord's ids are rewritten from hex to base64, and protobuf's own JSON parser reads the result
 * with unknown fields ignored, as the OTLP specification asks of receivers.
 */
final class OtlpJson {
  /** Deeper than any OTLP body needs: protobuf's parser stops at 100 levels of messages. */
  private static final int MAX_NESTING = 256;

  private static final ObjectMapper MAPPER =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
              .build());

  private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();

  private OtlpJson() {}

  /** The request, or 400 naming what is wrong. */
  static ExportLogsServiceRequest parse(byte[] body) {
    JsonNode root;
    try {
      root = MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      throw OtlpRefusal.malformed("the body is not JSON: " + e.getOriginalMessage());
    } catch (IOException | RuntimeException e) {
      throw OtlpRefusal.malformed("the body is not JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      throw OtlpRefusal.malformed("the body is empty: an OTLP JSON body is one JSON object");
    }
    if (!root.isObject()) {
      throw OtlpRefusal.malformed(
          "the body must be one JSON object (ExportLogsServiceRequest) found="
              + root.getNodeType());
    }
    String bad = unpairedSurrogate(root);
    if (bad != null) {
      throw OtlpRefusal.malformed(
          "the body holds a string that is not valid Unicode (an unpaired surrogate escape) in "
              + bad);
    }
    rewriteIds(root);
    ExportLogsServiceRequest.Builder b = ExportLogsServiceRequest.newBuilder();
    try {
      PARSER.merge(MAPPER.writeValueAsString(root), b);
    } catch (InvalidProtocolBufferException e) {
      throw OtlpRefusal.malformed(
          "the body is not an OTLP JSON ExportLogsServiceRequest: " + e.getMessage());
    } catch (IOException | RuntimeException e) {
      // protobuf's parser raises some unchecked exceptions (number formats, nesting) too.
      throw OtlpRefusal.malformed("the body is not an OTLP JSON ExportLogsServiceRequest: " + e);
    }
    return b.build();
  }

  /**
   * Where a string (value or field name) holds an unpaired UTF-16 surrogate, which JSON's {@code
   * \\uXXXX} escapes can spell but no protobuf string may hold; null when there is none.
   */
  private static String unpairedSurrogate(JsonNode n) {
    if (n.isTextual()) {
      return validUtf16(n.textValue()) ? null : "a string value";
    }
    if (n instanceof ObjectNode o) {
      for (var it = o.properties().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (!validUtf16(e.getKey())) {
          return "a field name";
        }
        String inner = unpairedSurrogate(e.getValue());
        if (inner != null) {
          return inner;
        }
      }
    } else if (n.isArray()) {
      for (JsonNode e : n) {
        String inner = unpairedSurrogate(e);
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }

  private static boolean validUtf16(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return false;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return false;
      }
    }
    return true;
  }

  /** Rewrites {@code traceId}/{@code spanId} of every LogRecord from hex to base64, in place. */
  private static void rewriteIds(JsonNode root) {
    for (JsonNode rl : array(root, "resourceLogs", "resource_logs")) {
      for (JsonNode sl : array(rl, "scopeLogs", "scope_logs")) {
        int i = 0;
        for (JsonNode lr : array(sl, "logRecords", "log_records")) {
          if (lr instanceof ObjectNode o) {
            hexToBase64(o, "traceId", i);
            hexToBase64(o, "trace_id", i);
            hexToBase64(o, "spanId", i);
            hexToBase64(o, "span_id", i);
          }
          i++;
        }
      }
    }
  }

  private static Iterable<JsonNode> array(JsonNode parent, String camel, String snake) {
    if (!(parent instanceof ObjectNode o)) {
      return java.util.List.of();
    }
    JsonNode a = o.has(camel) ? o.get(camel) : o.get(snake);
    // Not an array: protobuf's parser reports it.
    return a != null && a.isArray() ? a : java.util.List.of();
  }

  private static void hexToBase64(ObjectNode record, String field, int index) {
    JsonNode v = record.get(field);
    if (v == null || !v.isTextual()) {
      return;
    }
    String hex = v.textValue();
    byte[] bytes = Hex.decode(hex);
    if (bytes == null) {
      throw OtlpRefusal.malformed(
          "a LogRecord's "
              + field
              + " is not hex (OTLP JSON encodes ids in hex) logRecord="
              + index
              + " value="
              + OtlpBodies.printable(hex));
    }
    record.set(field, TextNode.valueOf(Base64.getEncoder().encodeToString(bytes)));
  }
}
