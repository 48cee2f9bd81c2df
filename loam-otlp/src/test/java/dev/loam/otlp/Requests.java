package dev.loam.otlp;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Hand-built OTLP requests and a plain HTTP client for the status-code tests. */
final class Requests {
  static final HttpClient HTTP = HttpClient.newHttpClient();

  private Requests() {}

  static LogRecord record(int i) {
    return LogRecord.newBuilder()
        .setTimeUnixNano(1_764_590_400_000_000_000L + i)
        .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO)
        .setBody(AnyValue.newBuilder().setStringValue("line " + i))
        .addAttributes(Oracle.string("i", Integer.toString(i)))
        .build();
  }

  /** One resource, one scope, these records. */
  static ExportLogsServiceRequest request(List<LogRecord> records) {
    return ExportLogsServiceRequest.newBuilder()
        .addResourceLogs(
            ResourceLogs.newBuilder()
                .setResource(
                    Resource.newBuilder().addAttributes(Oracle.string("service.name", "t")))
                .addScopeLogs(
                    ScopeLogs.newBuilder()
                        .setScope(InstrumentationScope.newBuilder().setName("scope"))
                        .addAllLogRecords(records)))
        .build();
  }

  /** A record with a 3-byte trace id: invalid. */
  static LogRecord badTraceId(int i) {
    return record(i).toBuilder().setTraceId(ByteString.copyFrom(new byte[] {1, 2, 3})).build();
  }

  static byte[] gzip(byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream g = new GZIPOutputStream(out)) {
      g.write(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  static HttpResponse<byte[]> post(
      String url, String contentType, String encoding, byte[] body, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    if (encoding != null) {
      b.header("Content-Encoding", encoding);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
