package dev.loam.otlp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.AppendRecord;
import dev.loam.api.Header;
import dev.loam.otlp.OtlpArbitraries;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The mapping against its oracle (docs/reference/otlp.md "Mapping"): for any valid request, one
 * record per LogRecord in order, each value equal to protobuf's JSON printer over the record with
 * the merged attributes (ids as hex), the timestamp, key and headers as documented.
 */
class LogMapperPropertyTest {
  @Provide
  Arbitrary<ExportLogsServiceRequest> requests() {
    return OtlpArbitraries.requests();
  }

  @Property(tries = 100)
  void valuesEqualTheOracle(@ForAll("requests") ExportLogsServiceRequest req) {
    LogMapper.Mapped m = LogMapper.map(req, Optional.of("service.name"), 1 << 20);
    assertThat(m.rejected()).isZero();
    List<AppendRecord> out = m.records();
    int i = 0;
    long bytes = 0;
    for (ResourceLogs rl : req.getResourceLogsList()) {
      for (ScopeLogs sl : rl.getScopeLogsList()) {
        for (LogRecord r : sl.getLogRecordsList()) {
          AppendRecord rec = out.get(i++);
          bytes += LogMapper.size(rec);
          List<KeyValue> merged =
              dev.loam.otlp.OracleAccess.merge(r, sl.getScope(), rl.getResource());
          assertThat(dev.loam.otlp.OracleAccess.tree(rec.value()))
              .isEqualTo(dev.loam.otlp.OracleAccess.expected(r, sl.getScope(), rl.getResource()));
          long ts =
              r.getTimeUnixNano() != 0
                  ? Long.divideUnsigned(r.getTimeUnixNano(), 1_000_000)
                  : Long.divideUnsigned(r.getObservedTimeUnixNano(), 1_000_000);
          if (r.getTimeUnixNano() == 0 && r.getObservedTimeUnixNano() == 0) {
            assertThat(rec.timestamp()).isEmpty();
          } else {
            assertThat(rec.timestamp()).hasValue(ts);
          }
          List<Header> expected = new ArrayList<>();
          if (!r.getTraceId().isEmpty()) {
            expected.add(
                new Header(
                    "trace_id", ascii(HexFormat.of().formatHex(r.getTraceId().toByteArray()))));
          }
          if (!r.getSpanId().isEmpty()) {
            expected.add(
                new Header(
                    "span_id", ascii(HexFormat.of().formatHex(r.getSpanId().toByteArray()))));
          }
          if (r.getSeverityNumberValue() != 0) {
            expected.add(new Header("severity_number", ascii("" + r.getSeverityNumberValue())));
          }
          assertThat(rec.headers()).isEqualTo(expected);
          KeyValue first =
              merged.stream()
                  .filter(kv -> kv.getKey().equals("service.name"))
                  .findFirst()
                  .orElse(null);
          if (first == null
              || !first.hasValue()
              || first.getValue().getValueCase().getNumber() == 0) {
            assertThat(rec.key()).isNull();
          } else if (first.getValue().hasStringValue()) {
            assertThat(new String(rec.key(), StandardCharsets.UTF_8))
                .isEqualTo(first.getValue().getStringValue());
          } else {
            assertThat(rec.key()).isNotNull();
          }
        }
      }
    }
    assertThat(out).hasSize(i);
    assertThat(m.bytes()).isEqualTo(bytes);
  }

  @Property(tries = 80)
  void invalidRecordsAreRejectedAndTheRestKept(@ForAll("requests") ExportLogsServiceRequest req) {
    // Break every third record in one of the three ways.
    ExportLogsServiceRequest.Builder b = req.toBuilder();
    int n = 0;
    int broken = 0;
    for (ResourceLogs.Builder rl : b.getResourceLogsBuilderList()) {
      for (ScopeLogs.Builder sl : rl.getScopeLogsBuilderList()) {
        for (LogRecord.Builder r : sl.getLogRecordsBuilderList()) {
          switch (n++ % 3) {
            case 0 -> {
              r.setTraceId(com.google.protobuf.ByteString.copyFrom(new byte[5]));
              broken++;
            }
            case 1 -> {
              r.setSeverityNumberValue(25);
              broken++;
            }
            default -> {}
          }
        }
      }
    }
    LogMapper.Mapped m = LogMapper.map(b.build(), Optional.empty(), 1 << 20);
    assertThat(m.rejected()).isEqualTo(broken);
    assertThat(m.records()).hasSize(n - broken);
    if (broken > 0) {
      assertThat(m.errorMessage())
          .startsWith(broken + " invalid log record")
          .contains("logRecord=0");
    } else {
      assertThat(m.errorMessage()).isEmpty();
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
