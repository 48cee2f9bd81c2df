package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import io.opentelemetry.sdk.resources.Resource;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The OpenTelemetry Java SDK, unmodified, exports logs through its Logs bridge API to Loam over
 * OTLP/HTTP (http/protobuf) and OTLP/gRPC, gzip on: every record arrives, each service's records
 * stay in one partition in emission order on a stream keyed on {@code service.name}, headers carry
 * the trace id, span id and severity number, and every value is the OTLP JSON protobuf's own
 * printer gives for the record it parses back to.
 */
class OtlpSdkExportIT {
  static final int PER_SERVICE = 150;
  static final List<String> SERVICES = List.of("checkout", "cart", "payments");
  static final AttributeKey<Long> SEQ = AttributeKey.longKey("seq");

  @TempDir Path dir;

  static LogRecordExporter exporter(String transport, OtlpTestSupport t, Map<String, String> hs) {
    if (transport.equals("grpc")) {
      var b =
          OtlpGrpcLogRecordExporter.builder()
              .setEndpoint(t.grpcEndpoint())
              .setCompression("gzip")
              .setTimeout(Duration.ofSeconds(20));
      hs.forEach(b::addHeader);
      return b.build();
    }
    var b =
        OtlpHttpLogRecordExporter.builder()
            .setEndpoint(t.httpEndpoint() + "/v1/logs")
            .setCompression("gzip")
            .setTimeout(Duration.ofSeconds(20));
    hs.forEach(b::addHeader);
    return b.build();
  }

  static SdkLoggerProvider provider(String service, LogRecordExporter exporter) {
    return SdkLoggerProvider.builder()
        .setResource(
            Resource.getDefault()
                .merge(
                    Resource.create(
                        Attributes.of(AttributeKey.stringKey("service.name"), service))))
        .addLogRecordProcessor(
            BatchLogRecordProcessor.builder(exporter)
                .setScheduleDelay(Duration.ofMillis(20))
                .setMaxExportBatchSize(40)
                .build())
        .build();
  }

  static String traceId(int s, int i) {
    return String.format("%016x%016x", 0x1000L + s, 0xabc000L + i);
  }

  static String spanId(int s, int i) {
    return String.format("%016x", 0x5000L * (s + 1) + i);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http", "grpc"})
  void everyRecordArrivesInOrderPerServiceWithOracleValues(String transport) throws Exception {
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir, b -> b.keyAttribute("app_logs", "service.name"))) {
      List<SdkLoggerProvider> providers = new ArrayList<>();
      List<Logger> loggers = new ArrayList<>();
      for (String s : SERVICES) {
        SdkLoggerProvider p =
            provider(s, exporter(transport, t, Map.of("loam-stream", "app_logs")));
        providers.add(p);
        loggers.add(p.loggerBuilder("shop." + s).setInstrumentationVersion("1.2.3").build());
      }
      long baseNanos = 1_764_590_400_000_000_000L;
      for (int i = 0; i < PER_SERVICE; i++) {
        for (int s = 0; s < SERVICES.size(); s++) {
          SpanContext sc =
              SpanContext.create(
                  traceId(s, i), spanId(s, i), TraceFlags.getSampled(), TraceState.getDefault());
          loggers
              .get(s)
              .logRecordBuilder()
              .setContext(Context.root().with(Span.wrap(sc)))
              .setTimestamp(baseNanos + i * 1_000_000L + s, TimeUnit.NANOSECONDS)
              .setSeverity(i % 2 == 0 ? Severity.INFO : Severity.WARN)
              .setSeverityText(i % 2 == 0 ? "INFO" : "WARN")
              .setBody("order " + i + " of " + SERVICES.get(s) + " \u00e9\"<")
              .setAttribute(SEQ, (long) i)
              .setAttribute(AttributeKey.stringKey("service.name"), SERVICES.get(s) + "-shadow")
              .emit();
        }
      }
      for (SdkLoggerProvider p : providers) {
        assertThat(p.forceFlush().join(30, TimeUnit.SECONDS).isSuccess())
            .as("flush of " + transport)
            .isTrue();
        p.shutdown().join(10, TimeUnit.SECONDS);
      }

      List<FetchedRecord> records = t.records("default", "app_logs");
      assertThat(records).hasSize(PER_SERVICE * SERVICES.size());

      Map<String, List<FetchedRecord>> byService = new HashMap<>();
      for (FetchedRecord r : records) {
        JsonNode v = Oracle.tree(r.value());
        // The record's own service.name wins over the resource's (record > scope > resource).
        String svc = Oracle.attribute(v, "service.name").replace("-shadow", "");
        byService.computeIfAbsent(svc, k -> new ArrayList<>()).add(r);

        // The oracle: protobuf's printer over the record the value parses back to.
        assertThat(v).isEqualTo(Oracle.printed(Oracle.parse(r.value())));
        int s = SERVICES.indexOf(svc);
        int i = Integer.parseInt(Oracle.attribute(v, "seq"));
        assertThat(v.get("traceId").asText()).isEqualTo(traceId(s, i));
        assertThat(v.get("spanId").asText()).isEqualTo(spanId(s, i));
        assertThat(v.get("severityNumber").asInt()).isEqualTo(i % 2 == 0 ? 9 : 13);
        assertThat(v.get("body").get("stringValue").asText())
            .isEqualTo("order " + i + " of " + svc + " \u00e9\"<");
        assertThat(v.get("timeUnixNano").asText())
            .isEqualTo(Long.toString(baseNanos + i * 1_000_000L + s));
        assertThat(Oracle.attribute(v, "otel.scope.name")).isEqualTo("shop." + svc);
        assertThat(Oracle.attribute(v, "otel.scope.version")).isEqualTo("1.2.3");
        assertThat(Oracle.attribute(v, "telemetry.sdk.language")).isEqualTo("java");
        assertThat(r.timestamp()).isEqualTo((baseNanos + i * 1_000_000L + s) / 1_000_000L);
        assertThat(header(r, "trace_id")).isEqualTo(traceId(s, i));
        assertThat(header(r, "span_id")).isEqualTo(spanId(s, i));
        assertThat(header(r, "severity_number")).isEqualTo(i % 2 == 0 ? "9" : "13");
        // Keyed on the merged service.name: the record's own attribute.
        assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo(svc + "-shadow");
      }
      assertThat(byService.keySet()).containsExactlyInAnyOrderElementsOf(SERVICES);
      for (Map.Entry<String, List<FetchedRecord>> e : byService.entrySet()) {
        Set<Integer> partitions = new HashSet<>();
        List<Integer> seqs = new ArrayList<>();
        for (FetchedRecord r : e.getValue()) {
          partitions.add(r.partition());
          seqs.add(Integer.parseInt(Oracle.attribute(Oracle.tree(r.value()), "seq")));
        }
        assertThat(partitions).as("partitions of " + e.getKey()).hasSize(1);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < PER_SERVICE; i++) {
          expected.add(i);
        }
        assertThat(seqs).as("order of " + e.getKey()).isEqualTo(expected);
      }
    }
  }

  static String header(FetchedRecord r, String name) {
    for (Header h : r.headers()) {
      if (h.key().equals(name)) {
        return new String(h.value(), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }
}
