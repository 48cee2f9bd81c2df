package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.Status;
import dev.loam.api.FetchedRecord;
import dev.loam.http.Curl;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * OTLP/HTTP beyond the SDK: a JSON body sent with curl (the example of docs/reference/otlp.md,
 * stored exactly as the page says), partial success, and every refusal's status code and {@code
 * google.rpc.Status} body, with nothing stored from a refused request.
 */
class OtlpHttpIT {
  @TempDir Path dir;

  /** The two json blocks of the page's mapping example: the request and the stored value. */
  static List<String> docExample() throws Exception {
    String doc =
        Files.readString(Path.of("..", "docs", "reference", "otlp.md"), StandardCharsets.UTF_8);
    int at = doc.indexOf("Example: the request");
    Matcher m = Pattern.compile("```json\\n(.*?)\\n```", Pattern.DOTALL).matcher(doc);
    assertThat(m.find(at)).isTrue();
    String request = m.group(1);
    assertThat(m.find()).isTrue();
    return List.of(request, m.group(1));
  }

  @Test
  void curlJsonBodyIsStoredAsTheDocumentSays() throws Exception {
    Curl.requireCurl();
    List<String> ex = docExample();
    Path body = dir.resolve("logs.json");
    Files.writeString(body, ex.get(0));
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir.resolve("node"), b -> b.keyAttribute("keyed", "service.name"))) {
      Curl.Result r =
          Curl.run(
              "-X",
              "POST",
              "-H",
              "Content-Type: application/json",
              "--data-binary",
              "@" + body,
              t.httpEndpoint() + "/v1/logs");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("content-type")).isEqualTo("application/json");
      assertThat(r.body()).isEqualTo("{}");
      List<FetchedRecord> recs = t.records();
      assertThat(recs).hasSize(1);
      FetchedRecord rec = recs.get(0);
      assertThat(new String(rec.value(), StandardCharsets.UTF_8)).isEqualTo(ex.get(1));
      assertThat(rec.key()).isNull();
      assertThat(rec.timestamp()).isEqualTo(1764590400123L);
      assertThat(OtlpSdkExportIT.header(rec, "trace_id"))
          .isEqualTo("5b8efff798038103d269b633813fc60c");
      assertThat(OtlpSdkExportIT.header(rec, "span_id")).isEqualTo("eee19b7ec3c1b174");
      assertThat(OtlpSdkExportIT.header(rec, "severity_number")).isEqualTo("9");

      // gzip, to a stream keyed on service.name.
      Path gz = dir.resolve("logs.json.gz");
      Files.write(gz, Requests.gzip(ex.get(0).getBytes(StandardCharsets.UTF_8)));
      Curl.Result r2 =
          Curl.run(
              "-X",
              "POST",
              "-H",
              "Content-Type: application/json",
              "-H",
              "Content-Encoding: gzip",
              "-H",
              "loam-stream: keyed",
              "--data-binary",
              "@" + gz,
              t.httpEndpoint() + "/v1/logs");
      assertThat(r2.status()).isEqualTo(200);
      List<FetchedRecord> keyed = t.records("default", "keyed");
      assertThat(keyed).hasSize(1);
      assertThat(new String(keyed.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("checkout");
      assertThat(keyed.get(0).value()).isEqualTo(rec.value());
    }
  }

  @Test
  void partialSuccessStoresTheValidRecordsAndReportsTheRest() throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir)) {
      var req =
          Requests.request(
              List.of(
                  Requests.record(0),
                  Requests.badTraceId(1),
                  Requests.record(2),
                  Requests.record(3).toBuilder().setSeverityNumberValue(99).build(),
                  Requests.record(4)));
      HttpResponse<byte[]> r =
          Requests.post(
              t.httpEndpoint() + "/v1/logs",
              "application/x-protobuf",
              "gzip",
              Requests.gzip(req.toByteArray()));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("content-type")).hasValue("application/x-protobuf");
      ExportLogsServiceResponse resp = ExportLogsServiceResponse.parseFrom(r.body());
      assertThat(resp.getPartialSuccess().getRejectedLogRecords()).isEqualTo(2);
      assertThat(resp.getPartialSuccess().getErrorMessage())
          .contains("logRecord=1 trace_id must be empty or 16 bytes traceIdBytes=3")
          .contains("logRecord=3 severity_number must be within 0..24 severityNumber=99");
      assertThat(t.records())
          .extracting(rec -> Oracle.attribute(Oracle.tree(rec.value()), "i"))
          .containsExactlyInAnyOrder("0", "2", "4");
      assertThat(t.receiver.stats().rejectedRecords()).isEqualTo(2);

      // JSON answers in JSON, 64-bit counts as strings.
      HttpResponse<byte[]> j =
          Requests.post(
              t.httpEndpoint() + "/v1/logs",
              "application/json",
              null,
              ("{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"spanId\":\"00ff\"},"
                      + "{\"body\":{\"stringValue\":\"ok\"}}]}]}]}")
                  .getBytes(StandardCharsets.UTF_8));
      assertThat(j.statusCode()).isEqualTo(200);
      assertThat(new String(j.body(), StandardCharsets.UTF_8))
          .startsWith("{\"partialSuccess\":{\"rejectedLogRecords\":\"1\",\"errorMessage\":\"");
      assertThat(t.records()).hasSize(4);
    }
  }

  @Test
  void refusalsHaveTheirStatusAndStoreNothing() throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir, b -> b.maxRequestBytes(64 * 1024))) {
      String url = t.httpEndpoint() + "/v1/logs";
      byte[] valid = Requests.request(List.of(Requests.record(0))).toByteArray();

      assertRefused(Requests.post(url, "text/plain", null, valid), 415, "Content-Type=text/plain");
      assertRefused(Requests.post(url, null, null, valid), 415, "Content-Type is required");
      assertRefused(
          Requests.post(url, "application/x-protobuf", "br", valid), 415, "Content-Encoding=br");
      assertRefused(
          Requests.post(url, "application/x-protobuf", null, new byte[] {(byte) 0xff, 1, 2}),
          400,
          "not a protobuf ExportLogsServiceRequest");
      assertRefused(
          Requests.post(url, "application/json", null, "{\"resourceLogs\":[".getBytes()),
          400,
          "not JSON");
      assertRefused(
          Requests.post(url, "application/json", null, "[1]".getBytes()), 400, "one JSON object");
      assertRefused(
          Requests.post(
              url,
              "application/json",
              null,
              "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"traceId\":\"zz\"}]}]}]}"
                  .getBytes()),
          400,
          "traceId is not hex");
      assertRefused(
          Requests.post(url, "application/x-protobuf", "gzip", valid), 400, "not valid gzip");
      // Over the limit as sent (Content-Length) and after gzip.
      assertThat(
              Requests.post(url, "application/x-protobuf", null, new byte[70 * 1024]).statusCode())
          .isEqualTo(413);
      assertRefused(
          Requests.post(url, "application/x-protobuf", "gzip", Requests.gzip(new byte[200 * 1024])),
          413,
          "maxRequestBytes=65536");
      assertRefused(
          Requests.post(url, "application/x-protobuf", null, valid, "loam-stream", "bad name!"),
          400,
          "");
      assertRefused(
          Requests.post(url, "application/x-protobuf", null, valid, "loam-namespace", "missing-ns"),
          404,
          "missing-ns");
      HttpResponse<byte[]> wrongPath =
          Requests.post(t.httpEndpoint() + "/v1/traces", "application/x-protobuf", null, valid);
      assertThat(wrongPath.statusCode()).isEqualTo(404);
      var get =
          Requests.HTTP.send(
              java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).GET().build(),
              HttpResponse.BodyHandlers.ofByteArray());
      assertThat(get.statusCode()).isEqualTo(405);
      assertThat(get.headers().firstValue("allow")).hasValue("POST");

      assertThat(t.records()).isEmpty();
      assertThat(t.records("default", "bad name!")).isEmpty();
    }
  }

  @Test
  void withoutAutoCreationAMissingStreamIs404() throws Exception {
    try (OtlpTestSupport t = new OtlpTestSupport(dir, b -> b.autoCreateStreams(false))) {
      byte[] valid = Requests.request(List.of(Requests.record(0))).toByteArray();
      assertRefused(
          Requests.post(t.httpEndpoint() + "/v1/logs", "application/x-protobuf", null, valid),
          404,
          "auto-creation is off");
    }
  }

  @Test
  void recordAndRequestLimits() throws Exception {
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir, b -> b.maxRecordsPerRequest(3).maxRecordBytes(400))) {
      String url = t.httpEndpoint() + "/v1/logs";
      var big =
          Requests.record(1).toBuilder()
              .setBody(
                  io.opentelemetry.proto.common.v1.AnyValue.newBuilder()
                      .setStringValue("x".repeat(500)))
              .build();
      HttpResponse<byte[]> r =
          Requests.post(
              url,
              "application/x-protobuf",
              null,
              Requests.request(List.of(Requests.record(0), big)).toByteArray());
      assertThat(r.statusCode()).isEqualTo(200);
      ExportLogsServiceResponse resp = ExportLogsServiceResponse.parseFrom(r.body());
      assertThat(resp.getPartialSuccess().getRejectedLogRecords()).isEqualTo(1);
      assertThat(resp.getPartialSuccess().getErrorMessage())
          .contains("logRecord=1 record too large")
          .contains("maxRecordBytes=400");
      assertRefused(
          Requests.post(
              url,
              "application/x-protobuf",
              null,
              Requests.request(
                      List.of(
                          Requests.record(0),
                          Requests.record(1),
                          Requests.record(2),
                          Requests.record(3)))
                  .toByteArray()),
          400,
          "logRecords=4 maxRecordsPerRequest=3");
      assertThat(t.records()).hasSize(1);
    }
  }

  static void assertRefused(HttpResponse<byte[]> r, int status, String messagePart)
      throws Exception {
    assertThat(r.statusCode()).as(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo(status);
    String type = r.headers().firstValue("content-type").orElse("");
    String message;
    if (type.equals("application/x-protobuf")) {
      message = Status.parseFrom(r.body()).getMessage();
    } else {
      assertThat(type).isEqualTo("application/json");
      Status.Builder b = Status.newBuilder();
      com.google.protobuf.util.JsonFormat.parser()
          .merge(new String(r.body(), StandardCharsets.UTF_8), b);
      message = b.getMessage();
      assertThat(b.getCode()).isNotZero();
    }
    assertThat(message).contains(messagePart);
  }
}
