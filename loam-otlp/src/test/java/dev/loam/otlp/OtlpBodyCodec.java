package dev.loam.otlp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;

/** Encodes requests as an exporter would: protobuf, or OTLP JSON (protobuf's JSON, hex ids). */
public final class OtlpBodyCodec {
  private OtlpBodyCodec() {}

  public static byte[] json(ExportLogsServiceRequest req) {
    try {
      ObjectNode root = (ObjectNode) Oracle.JSON.readTree(JsonFormat.printer().print(req));
      for (var rl : root.path("resourceLogs")) {
        for (var sl : rl.path("scopeLogs")) {
          for (var lr : sl.path("logRecords")) {
            ObjectNode o = (ObjectNode) lr;
            for (String f : new String[] {"traceId", "spanId"}) {
              if (o.has(f)) {
                byte[] b = Base64.getDecoder().decode(o.get(f).textValue());
                o.set(f, TextNode.valueOf(HexFormat.of().formatHex(b)));
              }
            }
          }
        }
      }
      return Oracle.JSON.writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
