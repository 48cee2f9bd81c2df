package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.otlp.internal.LogMapper;
import dev.loam.otlp.internal.OtlpBodies;
import dev.loam.otlp.internal.OtlpRefusal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;

/**
 * Corrupted bodies against a live OTLP/HTTP listener: every answer is the status the parsers give
 * offline (never a 5xx), a refused body stores nothing, and an accepted one stores exactly its
 * valid records. Bodies are exporter encodings (protobuf, OTLP JSON, each optionally gzipped) of
 * generated requests with one byte replaced, inserted or the body truncated, from a fixed seed.
 */
class OtlpBodyRefusalIT {
  static final int BODIES = 160;
  static final int MAX = 1 << 20;

  // A jqwik example (its generators run only on a jqwik thread), so no JUnit @TempDir.
  @Example
  void corruptedBodiesGetTheirStatusAndStoreOnlyWhatIsAccepted() throws Exception {
    Path dir = Files.createTempDirectory("otlp-refusal");
    try {
      run(dir);
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private void run(Path dir) throws Exception {
    Random random = new Random(20261201L);
    Arbitrary<ExportLogsServiceRequest> requests = OtlpArbitraries.requests();
    var gen = requests.generator(100);
    try (OtlpTestSupport t = new OtlpTestSupport(dir)) {
      String url = t.httpEndpoint() + "/v1/logs";
      long expectedStored = 0;
      int refused = 0;
      for (int i = 0; i < BODIES; i++) {
        ExportLogsServiceRequest req = gen.next(random).value();
        int encoding = random.nextInt(4);
        boolean json = encoding % 2 == 1;
        boolean gzip = encoding >= 2;
        byte[] plain = json ? OtlpBodyCodec.json(req) : req.toByteArray();
        byte[] body = gzip ? Requests.gzip(plain) : plain;
        if (random.nextInt(5) > 0) {
          body = mutate(body, random);
        }
        String type = json ? "application/json" : "application/x-protobuf";
        String coding = gzip ? "gzip" : null;

        int expectedStatus;
        long stored = 0;
        try {
          ExportLogsServiceRequest decoded = OtlpBodies.decode(type, coding, body, MAX);
          stored = LogMapper.map(decoded, Optional.empty(), MAX).records().size();
          expectedStatus = 200;
        } catch (OtlpRefusal r) {
          expectedStatus = r.reason().httpStatus();
        }
        HttpResponse<byte[]> resp = Requests.post(url, type, coding, body);
        assertThat(resp.statusCode()).as("body %d", i).isEqualTo(expectedStatus).isLessThan(500);
        if (expectedStatus == 200) {
          expectedStored += stored;
        } else {
          refused++;
        }
        assertThat(t.receiver.stats().records())
            .as("records after body %d", i)
            .isEqualTo(expectedStored);
      }
      assertThat(refused).as("refused bodies").isBetween(BODIES / 4, BODIES - 10);
      assertThat(t.records()).hasSize((int) expectedStored);
    }
  }

  static byte[] mutate(byte[] b, Random random) {
    if (b.length == 0) {
      return new byte[] {(byte) random.nextInt()};
    }
    int i = random.nextInt(b.length);
    return switch (random.nextInt(3)) {
      case 0 -> {
        byte[] c = b.clone();
        c[i] ^= (byte) (1 + random.nextInt(255));
        yield c;
      }
      case 1 -> Arrays.copyOf(b, i);
      default -> {
        byte[] c = new byte[b.length + 1];
        System.arraycopy(b, 0, c, 0, i);
        c[i] = (byte) random.nextInt();
        System.arraycopy(b, i, c, i + 1, b.length - i);
        yield c;
      }
    };
  }
}
