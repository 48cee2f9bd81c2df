package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Role;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.opentelemetry.api.logs.Logger;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ingest quota and API keys on both transports. Over the quota the unmodified SDK exporter is
 * refused (429 with Retry-After, RESOURCE_EXHAUSTED with RetryInfo), retries on its own, and every
 * record arrives exactly once. A namespace-scoped key writes to its namespace; a missing or foreign
 * key is refused and stores nothing.
 */
class OtlpQuotaAndAuthIT {
  static final int RECORDS = 120;

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"http", "grpc"})
  void overQuotaTheExporterRetriesAndLosesNothing(String transport) throws Exception {
    // Each export of 60 records maps to ~14 KB; the bucket refills 20 KB/s with a 2 KB burst, so
    // the first export leaves it in debt and the second is refused for under a second.
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir, b -> b.ingestQuota(IngestQuota.of(20_000, 2_000)))) {
      SdkLoggerProvider provider =
          SdkLoggerProvider.builder()
              .addLogRecordProcessor(
                  BatchLogRecordProcessor.builder(OtlpSdkExportIT.exporter(transport, t, Map.of()))
                      .setScheduleDelay(Duration.ofMillis(10))
                      .setMaxExportBatchSize(60)
                      .setMaxQueueSize(4096)
                      .build())
              .build();
      Logger logger = provider.get("quota");
      for (int i = 0; i < RECORDS; i++) {
        logger
            .logRecordBuilder()
            .setSeverity(Severity.INFO)
            .setBody("quota line " + i + " " + "x".repeat(80))
            .setAttribute(OtlpSdkExportIT.SEQ, (long) i)
            .emit();
      }
      assertThat(provider.forceFlush().join(60, TimeUnit.SECONDS).isSuccess()).isTrue();
      provider.shutdown().join(10, TimeUnit.SECONDS);

      assertThat(t.receiver.stats().refused("QUOTA_EXCEEDED"))
          .as("refused over quota")
          .isPositive();
      List<FetchedRecord> records = t.records();
      Set<String> seqs = new HashSet<>();
      for (FetchedRecord r : records) {
        seqs.add(Oracle.attribute(Oracle.tree(r.value()), "seq"));
      }
      assertThat(records).hasSize(RECORDS);
      assertThat(seqs).hasSize(RECORDS);
    }
  }

  @Test
  void quotaRefusalsCarryTheirRetryDelay() throws Exception {
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir, b -> b.ingestQuota(IngestQuota.of(100, 100)))) {
      byte[] body = Requests.request(List.of(Requests.record(0))).toByteArray();
      String url = t.httpEndpoint() + "/v1/logs";
      assertThat(Requests.post(url, "application/x-protobuf", null, body).statusCode())
          .isEqualTo(200);
      HttpResponse<byte[]> r = Requests.post(url, "application/x-protobuf", null, body);
      assertThat(r.statusCode()).isEqualTo(429);
      assertThat(Long.parseLong(r.headers().firstValue("retry-after").orElseThrow())).isPositive();
      assertThat(com.google.rpc.Status.parseFrom(r.body()).getMessage())
          .contains("ingest quota exceeded")
          .contains("namespace=default");

      ManagedChannel ch = OtlpGrpcIT.channel(t);
      try {
        StatusRuntimeException e =
            OtlpGrpcIT.catchStatus(
                () -> OtlpGrpcIT.stub(ch).export(Requests.request(List.of(Requests.record(1)))));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
        com.google.rpc.Status detail = StatusProto.fromThrowable(e);
        assertThat(detail).isNotNull();
        com.google.rpc.RetryInfo info = detail.getDetails(0).unpack(com.google.rpc.RetryInfo.class);
        assertThat(info.getRetryDelay().getSeconds()).isPositive();
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      assertThat(t.records()).hasSize(1);
    }
  }

  @Test
  void apiKeysScopeTheNamespaceOnBothTransports() throws Exception {
    try (OtlpTestSupport t =
        new OtlpTestSupport(dir, b -> b.authentication(Authentication.WHEN_KEYS_EXIST))) {
      t.node.log().createNamespace("team").join();
      CreatedApiKey team =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("team", Role.PRODUCE)).join();
      CreatedApiKey reader =
          t.node.log().createApiKey(ApiKeySpec.inNamespace("team", Role.CONSUME)).join();
      String bearer = "Bearer " + team.token();

      // The SDK's exporter with the key as a header: records land in the key's namespace.
      for (String transport : List.of("http", "grpc")) {
        SdkLoggerProvider p =
            SdkLoggerProvider.builder()
                .addLogRecordProcessor(
                    BatchLogRecordProcessor.builder(
                            OtlpSdkExportIT.exporter(transport, t, Map.of("Authorization", bearer)))
                        .setScheduleDelay(Duration.ofMillis(10))
                        .build())
                .build();
        p.get("auth").logRecordBuilder().setBody("from " + transport).emit();
        assertThat(p.forceFlush().join(30, TimeUnit.SECONDS).isSuccess()).isTrue();
        p.shutdown().join(10, TimeUnit.SECONDS);
      }
      assertThat(t.records("team", "otel_logs")).hasSize(2);

      byte[] body = Requests.request(List.of(Requests.record(0))).toByteArray();
      String url = t.httpEndpoint() + "/v1/logs";
      HttpResponse<byte[]> none = Requests.post(url, "application/x-protobuf", null, body);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("www-authenticate")).hasValue("Bearer realm=\"loam\"");
      assertThat(
              Requests.post(
                      url,
                      "application/x-protobuf",
                      null,
                      body,
                      "Authorization",
                      "Bearer " + team.key().id() + ".wrongsecret")
                  .statusCode())
          .isEqualTo(401);
      HttpResponse<byte[]> foreign =
          Requests.post(
              url,
              "application/x-protobuf",
              null,
              body,
              "Authorization",
              bearer,
              "loam-namespace",
              "default");
      assertThat(foreign.statusCode()).isEqualTo(403);
      assertThat(com.google.rpc.Status.parseFrom(foreign.body()).getMessage())
          .contains("may not touch namespace=default")
          .doesNotContain(team.secret());
      assertThat(
              Requests.post(
                      url,
                      "application/x-protobuf",
                      null,
                      body,
                      "Authorization",
                      "Bearer " + reader.token())
                  .statusCode())
          .isEqualTo(403);

      ManagedChannel ch = OtlpGrpcIT.channel(t);
      try {
        assertThat(
                OtlpGrpcIT.catchStatus(
                        () ->
                            OtlpGrpcIT.stub(ch)
                                .export(Requests.request(List.of(Requests.record(1)))))
                    .getStatus()
                    .getCode())
            .isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(
                OtlpGrpcIT.catchStatus(
                        () ->
                            OtlpGrpcIT.stub(
                                    ch, "authorization", bearer, "loam-namespace", "default")
                                .export(Requests.request(List.of(Requests.record(1)))))
                    .getStatus()
                    .getCode())
            .isEqualTo(Status.Code.PERMISSION_DENIED);
      } finally {
        ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
      assertThat(t.records("team", "otel_logs")).hasSize(2);
      assertThat(t.records()).isEmpty();
    }
  }
}
