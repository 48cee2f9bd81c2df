package dev.loam.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import org.junit.jupiter.api.Test;

/** The settings' defaults (docs/reference/otlp.md "Configuration") and their validation. */
class OtlpSettingsTest {
  @Test
  void defaultsAreTheDocumentedOnes() {
    OtlpSettings s = OtlpSettings.defaults();
    assertThat(s.host()).isEqualTo("127.0.0.1");
    assertThat(s.httpPort()).isEqualTo(4318);
    assertThat(s.grpcPort()).isEqualTo(4317);
    assertThat(s.defaultNamespace()).isEqualTo("default");
    assertThat(s.defaultStream()).isEqualTo("otel_logs");
    assertThat(s.autoCreateStreams()).isTrue();
    assertThat(s.defaultPartitions()).isEqualTo(4);
    assertThat(s.maxRequestBytes()).isEqualTo(16 << 20);
    assertThat(s.maxRecordBytes()).isEqualTo(1 << 20);
    assertThat(s.maxRecordsPerRequest()).isEqualTo(100_000);
    assertThat(s.authentication()).isEqualTo(Authentication.WHEN_KEYS_EXIST);
    assertThat(s.ingestQuota().isUnlimited()).isTrue();
    assertThat(s.tls()).isEmpty();
    assertThat(OtlpSettings.builder().host("0.0.0.0").build().authentication())
        .isEqualTo(Authentication.REQUIRED);
  }

  @Test
  void keyAttributesAndQuotaOverridesArePerStreamAndNamespace() {
    OtlpSettings s =
        OtlpSettings.builder()
            .keyAttribute("app_logs", "service.name")
            .ingestQuota(IngestQuota.of(1000))
            .ingestQuota("bulk", IngestQuota.unlimited())
            .build();
    assertThat(s.keyAttributeOf("app_logs")).hasValue("service.name");
    assertThat(s.keyAttributeOf("otel_logs")).isEmpty();
    assertThat(s.quotaOf("default").bytesPerSecond()).isEqualTo(1000);
    assertThat(s.quotaOf("bulk").isUnlimited()).isTrue();
  }

  @Test
  void badValuesAreRefusedNamingThem() {
    assertInvalid(OtlpSettings.builder().httpPort(70000), "httpPort=70000");
    assertInvalid(OtlpSettings.builder().grpcPort(-2), "grpcPort=-2");
    assertInvalid(OtlpSettings.builder().disableHttp().disableGrpc(), "at least one");
    assertInvalid(OtlpSettings.builder().httpPort(5000).grpcPort(5000), "must differ port=5000");
    assertInvalid(OtlpSettings.builder().host(" "), "host must not be blank");
    assertInvalid(OtlpSettings.builder().defaultPartitions(0), "defaultPartitions=0");
    assertInvalid(OtlpSettings.builder().maxRequestBytes(10), "maxRequestBytes=10");
    assertInvalid(OtlpSettings.builder().maxRecordBytes(10), "maxRecordBytes=10");
    assertInvalid(OtlpSettings.builder().maxRecordsPerRequest(0), "maxRecordsPerRequest=0");
    assertInvalid(OtlpSettings.builder().ioThreads(0), "ioThreads=0");
    assertInvalid(
        OtlpSettings.builder().keyAttribute("s", "has space"), "stream=s attribute=has space");
  }

  private static void assertInvalid(OtlpSettings.Builder b, String part) {
    assertThatThrownBy(b::build)
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(part);
  }
}
