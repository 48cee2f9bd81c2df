package dev.loam.otlp.internal;

import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Maps an {@code ExportLogsServiceRequest} to Loam records, one per valid LogRecord, in request
 * order (stream-engine.txt §7.1 "Mapping"; docs/reference/otlp.md "Mapping" and "Validation and
 * partial success"): the value is the record's OTLP JSON with the merged attributes, the timestamp
 * its time (else its observed time, else none: the node stamps it at arrival), the key the value of
 * the stream's key attribute if it has one, and the trace id, span id and severity number copied
 * into headers. Pure and thread-safe.
 */
public final class LogMapper {
  /** The scope's name and version, merged into every record of the scope. */
  public static final String SCOPE_NAME = "otel.scope.name";

  public static final String SCOPE_VERSION = "otel.scope.version";

  /** Record header names. */
  public static final String TRACE_ID_HEADER = "trace_id";

  public static final String SPAN_ID_HEADER = "span_id";
  public static final String SEVERITY_HEADER = "severity_number";

  /** Rejections named in the partial-success message; the rest are counted. */
  static final int MAX_NAMED_REJECTIONS = 10;

  private static final int MAX_SEVERITY = 24;
  private static final long NANOS_PER_MILLI = 1_000_000L;

  /** The mapped request: the records to append, their bytes, and the rejected LogRecords. */
  public record Mapped(List<AppendRecord> records, long bytes, long rejected, String errorMessage) {
    public Mapped {
      records = List.copyOf(records);
    }
  }

  private LogMapper() {}

  /** The number of LogRecords in a request. */
  public static long countRecords(ExportLogsServiceRequest req) {
    long n = 0;
    for (ResourceLogs rl : req.getResourceLogsList()) {
      for (ScopeLogs sl : rl.getScopeLogsList()) {
        n += sl.getLogRecordsCount();
      }
    }
    return n;
  }

  /**
   * Maps every LogRecord of {@code req}. {@code keyAttribute} is the stream's key attribute, if it
   * has one; a record whose mapped size is over {@code maxRecordBytes} is rejected.
   */
  public static Mapped map(
      ExportLogsServiceRequest req, Optional<String> keyAttribute, int maxRecordBytes) {
    List<AppendRecord> out = new ArrayList<>();
    long bytes = 0;
    long rejected = 0;
    StringBuilder errors = new StringBuilder();
    int index = 0;
    for (ResourceLogs rl : req.getResourceLogsList()) {
      Resource resource = rl.getResource();
      for (ScopeLogs sl : rl.getScopeLogsList()) {
        InstrumentationScope scope = sl.getScope();
        for (LogRecord r : sl.getLogRecordsList()) {
          String invalid = validate(r);
          AppendRecord rec = null;
          if (invalid == null) {
            rec = toRecord(r, mergedAttributes(r, scope, resource), keyAttribute);
            long size = size(rec);
            if (size > maxRecordBytes) {
              invalid =
                  "record too large mappedBytes=" + size + " maxRecordBytes=" + maxRecordBytes;
            } else {
              bytes += size;
            }
          }
          if (invalid != null) {
            if (rejected < MAX_NAMED_REJECTIONS) {
              errors.append(errors.length() == 0 ? "" : "; ");
              errors.append("logRecord=").append(index).append(' ').append(invalid);
            }
            rejected++;
          } else {
            out.add(rec);
          }
          index++;
        }
      }
    }
    String message = "";
    if (rejected > 0) {
      message =
          rejected
              + " invalid log record"
              + (rejected == 1 ? "" : "s")
              + " rejected: "
              + errors
              + (rejected > MAX_NAMED_REJECTIONS
                  ? "; and " + (rejected - MAX_NAMED_REJECTIONS) + " more"
                  : "");
    }
    return new Mapped(out, bytes, rejected, message);
  }

  /** Why a LogRecord is invalid, or null if it is valid. */
  static String validate(LogRecord r) {
    int t = r.getTraceId().size();
    if (t != 0 && t != 16) {
      return "trace_id must be empty or 16 bytes traceIdBytes=" + t;
    }
    int s = r.getSpanId().size();
    if (s != 0 && s != 8) {
      return "span_id must be empty or 8 bytes spanIdBytes=" + s;
    }
    int sev = r.getSeverityNumberValue();
    if (sev < 0 || sev > MAX_SEVERITY) {
      return "severity_number must be within 0..24 severityNumber=" + sev;
    }
    return null;
  }

  /**
   * The record's attributes, then each of its scope's, the scope's name and version, and its
   * resource's attributes, each only when its key is not present yet: the most specific wins.
   */
  public static List<KeyValue> mergedAttributes(
      LogRecord r, InstrumentationScope scope, Resource resource) {
    int n = r.getAttributesCount() + scope.getAttributesCount() + resource.getAttributesCount();
    if (n == r.getAttributesCount() && scope.getName().isEmpty() && scope.getVersion().isEmpty()) {
      return r.getAttributesList();
    }
    List<KeyValue> merged = new ArrayList<>(n + 2);
    Set<String> keys = new HashSet<>();
    for (KeyValue kv : r.getAttributesList()) {
      merged.add(kv);
      keys.add(kv.getKey());
    }
    for (KeyValue kv : scope.getAttributesList()) {
      if (keys.add(kv.getKey())) {
        merged.add(kv);
      }
    }
    if (!scope.getName().isEmpty() && keys.add(SCOPE_NAME)) {
      merged.add(stringAttribute(SCOPE_NAME, scope.getName()));
    }
    if (!scope.getVersion().isEmpty() && keys.add(SCOPE_VERSION)) {
      merged.add(stringAttribute(SCOPE_VERSION, scope.getVersion()));
    }
    for (KeyValue kv : resource.getAttributesList()) {
      if (keys.add(kv.getKey())) {
        merged.add(kv);
      }
    }
    return merged;
  }

  private static KeyValue stringAttribute(String key, String value) {
    return KeyValue.newBuilder()
        .setKey(key)
        .setValue(AnyValue.newBuilder().setStringValue(value))
        .build();
  }

  private static AppendRecord toRecord(
      LogRecord r, List<KeyValue> attributes, Optional<String> keyAttribute) {
    byte[] value = LogRecordJson.encode(r, attributes);
    byte[] key = keyAttribute.map(a -> keyOf(attributes, a)).orElse(null);
    List<Header> headers = new ArrayList<>(3);
    if (!r.getTraceId().isEmpty()) {
      headers.add(new Header(TRACE_ID_HEADER, ascii(Hex.encode(r.getTraceId().toByteArray()))));
    }
    if (!r.getSpanId().isEmpty()) {
      headers.add(new Header(SPAN_ID_HEADER, ascii(Hex.encode(r.getSpanId().toByteArray()))));
    }
    if (r.getSeverityNumberValue() != 0) {
      headers.add(new Header(SEVERITY_HEADER, ascii(Integer.toString(r.getSeverityNumberValue()))));
    }
    return new AppendRecord(key, value, headers, timestampMillis(r), OptionalInt.empty());
  }

  /** time_unix_nano, else observed_time_unix_nano, in ms; empty: the node stamps arrival. */
  static OptionalLong timestampMillis(LogRecord r) {
    if (r.getTimeUnixNano() != 0) {
      return OptionalLong.of(Long.divideUnsigned(r.getTimeUnixNano(), NANOS_PER_MILLI));
    }
    if (r.getObservedTimeUnixNano() != 0) {
      return OptionalLong.of(Long.divideUnsigned(r.getObservedTimeUnixNano(), NANOS_PER_MILLI));
    }
    return OptionalLong.empty();
  }

  /** The UTF-8 text of the first attribute named {@code name}, or null when none has a value. */
  static byte[] keyOf(List<KeyValue> attributes, String name) {
    for (KeyValue kv : attributes) {
      if (kv.getKey().equals(name)) {
        return kv.hasValue() ? keyText(kv.getValue()) : null;
      }
    }
    return null;
  }

  private static byte[] keyText(AnyValue v) {
    String text =
        switch (v.getValueCase()) {
          case STRING_VALUE -> v.getStringValue();
          case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
          case INT_VALUE -> Long.toString(v.getIntValue());
          case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
          case BYTES_VALUE -> Base64.getEncoder().encodeToString(v.getBytesValue().toByteArray());
          case VALUE_NOT_SET -> null;
          default -> LogRecordJson.anyValueText(v);
        };
    return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  /** What a record costs: key, value, header names and values (as the ingest quota counts). */
  static long size(AppendRecord r) {
    long n = (r.key() == null ? 0 : r.key().length) + r.value().length;
    for (Header h : r.headers()) {
      n += h.key().length() + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }
}
