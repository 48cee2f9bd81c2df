package dev.loam.otlp;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;

/** {@link Oracle} for the tests of the internal package. */
public final class OracleAccess {
  private OracleAccess() {}

  public static List<KeyValue> merge(LogRecord r, InstrumentationScope s, Resource res) {
    return Oracle.merge(r, s, res);
  }

  public static JsonNode expected(LogRecord r, InstrumentationScope s, Resource res) {
    return Oracle.expected(r, s, res);
  }

  public static JsonNode printed(LogRecord r) {
    return Oracle.printed(r);
  }

  public static JsonNode tree(byte[] value) {
    return Oracle.tree(value);
  }
}
