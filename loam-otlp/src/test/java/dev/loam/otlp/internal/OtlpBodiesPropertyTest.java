package dev.loam.otlp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.otlp.OtlpArbitraries;
import dev.loam.otlp.OtlpBodyCodec;
import dev.loam.otlp.internal.OtlpRefusal.Reason;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.zip.GZIPOutputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * The body parsers (protobuf, OTLP JSON, gzip): any request encoded as an exporter does decodes to
 * itself, and any corruption of it — or any bytes at all — decodes to a request the mapper maps, or
 * to a 400/413/415 refusal, never another exception (which the listeners would answer 500).
 */
class OtlpBodiesPropertyTest {
  static final int MAX = 1 << 20;
  static final Set<Reason> CLIENT_ERRORS =
      EnumSet.of(Reason.MALFORMED, Reason.TOO_LARGE, Reason.UNSUPPORTED_MEDIA_TYPE);

  @Provide
  Arbitrary<ExportLogsServiceRequest> requests() {
    return OtlpArbitraries.requests();
  }

  @Provide
  Arbitrary<String> contentTypes() {
    return Arbitraries.of(
        "application/x-protobuf",
        "application/json",
        "application/json; charset=utf-8",
        "application/protobuf",
        "text/plain",
        "");
  }

  @Property(tries = 80)
  void encodedRequestsDecodeToThemselves(@ForAll("requests") ExportLogsServiceRequest req)
      throws IOException {
    byte[] pb = req.toByteArray();
    byte[] json = OtlpBodyCodec.json(req);
    assertThat(OtlpBodies.decode("application/x-protobuf", null, pb, MAX)).isEqualTo(req);
    assertThat(OtlpBodies.decode("application/x-protobuf", "gzip", gzip(pb), MAX)).isEqualTo(req);
    // OTLP JSON decodes as protobuf's own JSON parser reads protobuf's own JSON (which turns a
    // double -0.0 into 0.0: it parses numbers through BigDecimal).
    ExportLogsServiceRequest.Builder viaJson = ExportLogsServiceRequest.newBuilder();
    com.google.protobuf.util.JsonFormat.parser()
        .merge(com.google.protobuf.util.JsonFormat.printer().print(req), viaJson);
    ExportLogsServiceRequest expected = viaJson.build();
    assertThat(OtlpBodies.decode("application/json", null, json, MAX)).isEqualTo(expected);
    assertThat(OtlpBodies.decode("Application/JSON", "GZIP", gzip(json), MAX)).isEqualTo(expected);
  }

  @Property(tries = 150)
  void corruptedBodiesAreRefusedOrMapped(
      @ForAll("requests") ExportLogsServiceRequest req,
      @ForAll @IntRange(min = 0, max = 3) int encoding,
      @ForAll @IntRange(min = 0, max = 2) int mutation,
      @ForAll @IntRange(min = 0, max = 100_000) int where,
      @ForAll byte replacement)
      throws IOException {
    byte[] plain = (encoding % 2 == 0) ? req.toByteArray() : OtlpBodyCodec.json(req);
    byte[] body = encoding >= 2 ? gzip(plain) : plain;
    byte[] bad = mutate(body, mutation, where, replacement);
    String type = encoding % 2 == 0 ? "application/x-protobuf" : "application/json";
    check(type, encoding >= 2 ? "gzip" : null, bad);
  }

  @Property(tries = 300)
  void anyBytesAreRefusedOrMapped(
      @ForAll("contentTypes") String type, @ForAll boolean gzipped, @ForAll byte[] bytes) {
    check(type, gzipped ? "gzip" : null, bytes);
  }

  static void check(String type, String encoding, byte[] body) {
    ExportLogsServiceRequest r;
    try {
      r = OtlpBodies.decode(type, encoding, body, MAX);
    } catch (OtlpRefusal e) {
      assertThat(e.reason()).isIn(CLIENT_ERRORS);
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    // Decoded: the mapper takes it without failing (invalid records are rejected, not thrown).
    LogMapper.Mapped m = LogMapper.map(r, Optional.of("service.name"), MAX);
    assertThat(m.records().size() + m.rejected()).isEqualTo(LogMapper.countRecords(r));
  }

  static byte[] mutate(byte[] b, int mutation, int where, byte replacement) {
    if (b.length == 0) {
      return new byte[] {replacement};
    }
    int i = where % b.length;
    return switch (mutation) {
      case 0 -> {
        byte[] c = b.clone();
        c[i] = c[i] == replacement ? (byte) ~replacement : replacement;
        yield c;
      }
      case 1 -> Arrays.copyOf(b, i);
      default -> {
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, i);
        c[i] = replacement;
        System.arraycopy(b, i, c, i + 1, b.length - i);
        yield c;
      }
    };
  }

  static byte[] gzip(byte[] b) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(b);
    }
    return out.toByteArray();
  }
}
