package dev.loam.otlp;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.resource.v1.Resource;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** jqwik generators of OTLP logs requests: every field, nested values, clashing attribute keys. */
public final class OtlpArbitraries {
  private OtlpArbitraries() {}

  /** Few keys, so record, scope and resource attributes clash often. */
  static Arbitrary<String> keys() {
    return Arbitraries.oneOf(
        Arbitraries.of("service.name", "host.name", "otel.scope.name", "k", "", "\u00e9t\u00e9"),
        Arbitraries.strings().ofMaxLength(6).filter(OtlpArbitraries::validUnicode));
  }

  /**
   * Valid Unicode only: a protobuf string read from the wire is valid UTF-8 (proto3 checks it), so
   * unpaired surrogates never reach the mapper.
   */
  static Arbitrary<String> texts() {
    return Arbitraries.oneOf(
            Arbitraries.strings().ofMaxLength(12),
            Arbitraries.of(
                    "<",
                    ">",
                    "&",
                    "=",
                    "\"",
                    "'",
                    "\\",
                    "\u2028",
                    "\u0000",
                    "\u00e9",
                    "\ud83d\ude00")
                .list()
                .ofMaxSize(6)
                .map(l -> String.join("", l)))
        .filter(OtlpArbitraries::validUnicode);
  }

  static boolean validUnicode(String s) {
    return s.equals(
        new String(
            s.getBytes(java.nio.charset.StandardCharsets.UTF_8),
            java.nio.charset.StandardCharsets.UTF_8));
  }

  static Arbitrary<AnyValue> values(int depth) {
    Arbitrary<AnyValue> scalar =
        Arbitraries.oneOf(
            texts().map(s -> AnyValue.newBuilder().setStringValue(s).build()),
            Arbitraries.of(true, false).map(b -> AnyValue.newBuilder().setBoolValue(b).build()),
            Arbitraries.longs().map(l -> AnyValue.newBuilder().setIntValue(l).build()),
            Arbitraries.oneOf(
                    Arbitraries.doubles(),
                    Arbitraries.of(
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        Double.NEGATIVE_INFINITY,
                        -0.0,
                        1e300,
                        4.9e-324,
                        0.1))
                .map(d -> AnyValue.newBuilder().setDoubleValue(d).build()),
            Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(8)
                .map(b -> AnyValue.newBuilder().setBytesValue(ByteString.copyFrom(b)).build()),
            Arbitraries.just(AnyValue.getDefaultInstance()));
    if (depth == 0) {
      return scalar;
    }
    Arbitrary<AnyValue> array =
        values(depth - 1)
            .list()
            .ofMaxSize(3)
            .map(
                l ->
                    AnyValue.newBuilder()
                        .setArrayValue(ArrayValue.newBuilder().addAllValues(l))
                        .build());
    Arbitrary<AnyValue> kvlist =
        keyValues(depth - 1)
            .list()
            .ofMaxSize(3)
            .map(
                l ->
                    AnyValue.newBuilder()
                        .setKvlistValue(KeyValueList.newBuilder().addAllValues(l))
                        .build());
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(6, scalar),
        net.jqwik.api.Tuple.of(1, array),
        net.jqwik.api.Tuple.of(1, kvlist));
  }

  static Arbitrary<KeyValue> keyValues(int depth) {
    return Combinators.combine(keys(), values(depth), Arbitraries.of(true, true, true, false))
        .as(
            (k, v, has) -> {
              KeyValue.Builder b = KeyValue.newBuilder().setKey(k);
              return has ? b.setValue(v).build() : b.build();
            });
  }

  static Arbitrary<ByteString> id(int length) {
    return Arbitraries.oneOf(
        Arbitraries.just(ByteString.EMPTY),
        Arbitraries.bytes().array(byte[].class).ofSize(length).map(ByteString::copyFrom));
  }

  /** Valid LogRecords: ids empty or of their length, severity within 0..24. */
  static Arbitrary<LogRecord> records() {
    Arbitrary<long[]> times =
        Combinators.combine(
                Arbitraries.of(0L, 1L, 1_764_590_400_123_456_789L, -1L), Arbitraries.longs())
            .as((a, b) -> new long[] {a, b});
    return Combinators.combine(
            times,
            Arbitraries.integers().between(0, 24),
            texts(),
            values(2).injectNull(0.2),
            keyValues(2).list().ofMaxSize(4),
            Arbitraries.integers(),
            Combinators.combine(id(16), id(8), texts()).as((t, s, e) -> new Object[] {t, s, e}))
        .as(
            (t, sev, sevText, body, attrs, n, ids) -> {
              LogRecord.Builder b =
                  LogRecord.newBuilder()
                      .setTimeUnixNano(t[0])
                      .setObservedTimeUnixNano(t[1])
                      .setSeverityNumberValue(sev)
                      .setSeverityText(sevText)
                      .addAllAttributes(attrs)
                      .setDroppedAttributesCount(n & 0xff)
                      .setFlags(n)
                      .setTraceId((ByteString) ids[0])
                      .setSpanId((ByteString) ids[1])
                      .setEventName((String) ids[2]);
              if (body != null) {
                b.setBody(body);
              }
              return b.build();
            });
  }

  static Arbitrary<InstrumentationScope> scopes() {
    return Combinators.combine(texts(), texts(), keyValues(1).list().ofMaxSize(3))
        .as(
            (n, v, a) ->
                InstrumentationScope.newBuilder()
                    .setName(n)
                    .setVersion(v)
                    .addAllAttributes(a)
                    .build());
  }

  static Arbitrary<Resource> resources() {
    return keyValues(1)
        .list()
        .ofMaxSize(4)
        .map(a -> Resource.newBuilder().addAllAttributes(a).build());
  }

  /** Requests of up to 3 resources × 3 scopes × 4 records. */
  public static Arbitrary<ExportLogsServiceRequest> requests() {
    Arbitrary<ScopeLogs> scopeLogs =
        Combinators.combine(scopes(), records().list().ofMaxSize(4))
            .as((s, r) -> ScopeLogs.newBuilder().setScope(s).addAllLogRecords(r).build());
    Arbitrary<ResourceLogs> resourceLogs =
        Combinators.combine(resources(), scopeLogs.list().ofMaxSize(3))
            .as((r, s) -> ResourceLogs.newBuilder().setResource(r).addAllScopeLogs(s).build());
    return resourceLogs
        .list()
        .ofMaxSize(3)
        .map(l -> ExportLogsServiceRequest.newBuilder().addAllResourceLogs(l).build());
  }
}
