package dev.loam.otlp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.AppendRecord;
import dev.loam.otlp.internal.LogMapper;
import dev.loam.otlp.internal.OtlpBodies;
import dev.loam.otlp.internal.OtlpRefusal;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;

/**
 * Coverage-guided fuzzing of the OTLP/HTTP body decoding ({@link OtlpBodies#decode}: gzip, then
 * protobuf or OTLP JSON) and the mapping of what it decodes (docs/reference/otlp.md). The first
 * input byte picks the encoding: bit 0 JSON (else protobuf), bit 1 gzip; the rest is the body.
 *
 * <p>Contract: an {@link OtlpRefusal} of 400, 413 or 415 with a message, or a request that {@link
 * LogMapper#map} maps without failing into records plus rejections adding up to its LogRecords,
 * every value strict JSON; a protobuf request re-encodes to a body that decodes to itself.
 */
class OtlpBodyFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MAX = 1 << 20;

  @DictionaryEntries({
    "{\"resourceLogs\":[",
    "{\"scopeLogs\":[",
    "{\"logRecords\":[",
    "\"traceId\":\"",
    "\"spanId\":\"",
    "\"severityNumber\":",
    "\"timeUnixNano\":\"",
    "\"body\":{\"stringValue\":",
    "\"kvlistValue\":{\"values\":[",
    "\"arrayValue\":{\"values\":[",
    "\"attributes\":[{\"key\":",
    "\"intValue\":\"9223372036854775808\"",
    "\"doubleValue\":\"NaN\"",
    "\"bytesValue\":\"AAEC\"",
    "\\ud800"
  })
  @FuzzTest
  void decode(byte[] input) throws IOException {
    if (input.length == 0) {
      return;
    }
    boolean json = (input[0] & 1) != 0;
    boolean gzip = (input[0] & 2) != 0;
    byte[] body = Arrays.copyOfRange(input, 1, input.length);
    ExportLogsServiceRequest req;
    try {
      req =
          OtlpBodies.decode(
              json ? "application/json" : "application/x-protobuf",
              gzip ? "gzip" : null,
              body,
              MAX);
    } catch (OtlpRefusal e) {
      assertThat(e.reason())
          .isIn(EnumSet.of(Reason.MALFORMED, Reason.TOO_LARGE, Reason.UNSUPPORTED_MEDIA_TYPE));
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    LogMapper.Mapped m = LogMapper.map(req, Optional.of("service.name"), MAX);
    assertThat(m.records().size() + m.rejected()).isEqualTo(LogMapper.countRecords(req));
    for (AppendRecord r : m.records()) {
      assertThat(JSON.readTree(r.value()).isObject()).isTrue();
    }
    assertThat(OtlpBodies.decode("application/x-protobuf", null, req.toByteArray(), MAX))
        .isEqualTo(req);
  }
}
