package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import dev.loam.api.FetchedRecord;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.instrumentation.logback.appender.v1_0.OpenTelemetryAppender;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.resources.Resource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * An application logging through SLF4J onto Logback, with OpenTelemetry's own Logback appender
 * exporting through the unmodified SDK over OTLP/HTTP and OTLP/gRPC (gzip): every log line arrives
 * once, in order, with the logger name as the scope, the level as severity, MDC entries and the
 * exception as attributes.
 */
class OtlpLogbackIT {
  static final int LINES = 120;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"http", "grpc"})
  void slf4jLinesThroughTheLogbackAppenderArrive(String transport) throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir)) {
      SdkLoggerProvider provider =
          SdkLoggerProvider.builder()
              .setResource(
                  Resource.getDefault()
                      .merge(
                          Resource.create(
                              Attributes.of(AttributeKey.stringKey("service.name"), "orders"))))
              .addLogRecordProcessor(
                  BatchLogRecordProcessor.builder(
                          OtlpSdkExportIT.exporter(transport, t, Map.of("loam-stream", "orders")))
                      .setScheduleDelay(Duration.ofMillis(20))
                      .build())
              .build();
      OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setLoggerProvider(provider).build();

      LoggerContext ctx = (LoggerContext) LoggerFactory.getILoggerFactory();
      OpenTelemetryAppender appender = new OpenTelemetryAppender();
      appender.setContext(ctx);
      appender.setName("otel-" + transport);
      appender.setMdcAttributesIncluded("*");
      appender.start();
      String loggerName = "shop.orders." + transport;
      ch.qos.logback.classic.Logger lb = ctx.getLogger(loggerName);
      lb.setLevel(Level.INFO);
      lb.setAdditive(false);
      lb.addAppender(appender);
      OpenTelemetryAppender.install(sdk);
      try {
        org.slf4j.Logger log = LoggerFactory.getLogger(loggerName);
        for (int i = 0; i < LINES; i++) {
          MDC.put("order.id", Integer.toString(1000 + i));
          if (i % 10 == 9) {
            log.warn("order {} failed", i, new IllegalStateException("card declined " + i));
          } else {
            log.info("order {} placed", i);
          }
          log.debug("not exported {}", i); // below the logger's level
        }
        MDC.clear();
        assertThat(provider.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
      } finally {
        lb.detachAppender(appender);
        appender.stop();
        sdk.shutdown().join(10, TimeUnit.SECONDS);
      }

      List<FetchedRecord> records = new ArrayList<>(t.records("default", "orders"));
      assertThat(records).hasSize(LINES);
      // Round-robin over partitions: order by the log time, which the appender takes per line.
      records.sort(
          Comparator.comparing(
                  (FetchedRecord r) ->
                      Long.parseUnsignedLong(Oracle.tree(r.value()).get("timeUnixNano").asText()))
              .thenComparing(
                  r -> Integer.parseInt(Oracle.attribute(Oracle.tree(r.value()), "order.id"))));
      for (int i = 0; i < LINES; i++) {
        JsonNode v = Oracle.tree(records.get(i).value());
        assertThat(v).isEqualTo(Oracle.printed(Oracle.parse(records.get(i).value())));
        assertThat(Oracle.attribute(v, "order.id")).isEqualTo(Integer.toString(1000 + i));
        assertThat(Oracle.attribute(v, "otel.scope.name")).isEqualTo(loggerName);
        assertThat(Oracle.attribute(v, "service.name")).isEqualTo("orders");
        if (i % 10 == 9) {
          assertThat(v.get("body").get("stringValue").asText()).isEqualTo("order " + i + " failed");
          assertThat(v.get("severityText").asText()).isEqualTo("WARN");
          assertThat(v.get("severityNumber").asInt()).isEqualTo(13);
          assertThat(Oracle.attribute(v, "exception.type"))
              .isEqualTo(IllegalStateException.class.getName());
          assertThat(Oracle.attribute(v, "exception.message")).isEqualTo("card declined " + i);
        } else {
          assertThat(v.get("body").get("stringValue").asText()).isEqualTo("order " + i + " placed");
          assertThat(v.get("severityText").asText()).isEqualTo("INFO");
          assertThat(v.get("severityNumber").asInt()).isEqualTo(9);
        }
        assertThat(OtlpSdkExportIT.header(records.get(i), "severity_number"))
            .isEqualTo(i % 10 == 9 ? "13" : "9");
      }
    }
  }
}
