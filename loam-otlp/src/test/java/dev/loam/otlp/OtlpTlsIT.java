package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.tls.TestPki;
import dev.loam.tls.TlsSettings;
import io.opentelemetry.exporter.otlp.http.logs.OtlpHttpLogRecordExporter;
import io.opentelemetry.exporter.otlp.logs.OtlpGrpcLogRecordExporter;
import io.opentelemetry.sdk.logs.SdkLoggerProvider;
import io.opentelemetry.sdk.logs.export.BatchLogRecordProcessor;
import io.opentelemetry.sdk.logs.export.LogRecordExporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both listeners with TLS: the unmodified SDK exporters, trusting the test CA, export over https
 * (http/protobuf) and gRPC over TLS; an exporter that does not trust the CA delivers nothing.
 */
class OtlpTlsIT {
  @TempDir Path dir;

  @Test
  void sdkExportersReachBothListenersOverTls() throws Exception {
    TestPki ca = TestPki.create(dir.resolve("pki"), "otlp");
    TestPki.Issued cert = ca.issue("localhost");
    byte[] caPem = Files.readAllBytes(ca.caCertificate());
    try (OtlpTestSupport t =
        new OtlpTestSupport(
            dir.resolve("node"),
            b -> b.tls(TlsSettings.of(cert.certificate(), cert.privateKey())))) {
      LogRecordExporter http =
          OtlpHttpLogRecordExporter.builder()
              .setEndpoint("https://localhost:" + t.receiver.httpPort() + "/v1/logs")
              .setTrustedCertificates(caPem)
              .setCompression("gzip")
              .build();
      LogRecordExporter grpc =
          OtlpGrpcLogRecordExporter.builder()
              .setEndpoint("https://localhost:" + t.receiver.grpcPort())
              .setTrustedCertificates(caPem)
              .setCompression("gzip")
              .build();
      export(http, "over https");
      export(grpc, "over grpc+tls");
      assertThat(t.records())
          .extracting(r -> Oracle.tree(r.value()).get("body").get("stringValue").asText())
          .containsExactlyInAnyOrder("over https", "over grpc+tls");

      // Without the CA the handshake fails, so nothing is stored (the batch processor's flush
      // reports success whatever its export did, so the store is what the test checks).
      LogRecordExporter untrusting =
          OtlpHttpLogRecordExporter.builder()
              .setEndpoint("https://localhost:" + t.receiver.httpPort() + "/v1/logs")
              .setTimeout(Duration.ofSeconds(5))
              .build();
      SdkLoggerProvider p =
          SdkLoggerProvider.builder()
              .addLogRecordProcessor(BatchLogRecordProcessor.builder(untrusting).build())
              .build();
      p.get("tls").logRecordBuilder().setBody("refused").emit();
      p.forceFlush().join(20, TimeUnit.SECONDS);
      p.shutdown().join(10, TimeUnit.SECONDS);
      assertThat(t.records()).hasSize(2);
    }
  }

  private static void export(LogRecordExporter exporter, String body) {
    SdkLoggerProvider p =
        SdkLoggerProvider.builder()
            .addLogRecordProcessor(BatchLogRecordProcessor.builder(exporter).build())
            .build();
    p.get("tls").logRecordBuilder().setBody(body).emit();
    assertThat(p.forceFlush().join(20, TimeUnit.SECONDS).isSuccess()).as(body).isTrue();
    p.shutdown().join(10, TimeUnit.SECONDS);
  }
}
