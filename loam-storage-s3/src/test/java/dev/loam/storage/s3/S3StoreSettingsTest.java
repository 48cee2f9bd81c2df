package dev.loam.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Parsing of {@code s3://} URIs into {@link S3StoreSettings}; no sockets. */
class S3StoreSettingsTest {
  static S3StoreSettings parse(String uri) {
    return S3StoreSettings.fromUri(URI.create(uri), Map.of());
  }

  static void assertInvalid(String uri, String naming) {
    assertThatThrownBy(() -> parse(uri))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(naming);
  }

  @Test
  void bucketOnlyGivesTheDefaults() {
    S3StoreSettings s = parse("s3://my-bucket");
    assertThat(s).isEqualTo(S3StoreSettings.defaults("my-bucket"));
    assertThat(s.prefix()).isEmpty();
    assertThat(s.endpoint()).isEmpty();
    assertThat(s.region()).isEmpty();
    assertThat(s.accessKeyId()).isEmpty();
    assertThat(parse("s3://my-bucket/").prefix()).isEmpty();
  }

  @Test
  void everyParameterIsParsed() {
    S3StoreSettings s =
        parse(
            "s3://b.example/loam/prod?endpoint=http://127.0.0.1:9000&region=eu-west-1"
                + "&path-style=true&access-key=AK&secret-key=S%2Fk"
                + "&multipart-threshold-bytes=33554432&part-size-bytes=5242880"
                + "&part-concurrency=2&max-attempts=5&connect-timeout-ms=100"
                + "&attempt-timeout-ms=200&call-timeout-ms=300&max-connections=7"
                + "&connection-acquire-timeout-ms=400");
    assertThat(s.bucket()).isEqualTo("b.example");
    assertThat(s.prefix()).isEqualTo("loam/prod/");
    assertThat(s.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(s.region()).contains("eu-west-1");
    assertThat(s.pathStyle()).isTrue();
    assertThat(s.accessKeyId()).contains("AK");
    assertThat(s.secretAccessKey()).contains("S/k");
    assertThat(s.multipartThresholdBytes()).isEqualTo(32L << 20);
    assertThat(s.partSizeBytes()).isEqualTo(5 << 20);
    assertThat(s.partConcurrency()).isEqualTo(2);
    assertThat(s.maxAttempts()).isEqualTo(5);
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofMillis(100));
    assertThat(s.attemptTimeout()).isEqualTo(Duration.ofMillis(200));
    assertThat(s.callTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(s.maxConnections()).isEqualTo(7);
    assertThat(s.connectionAcquireTimeout()).isEqualTo(Duration.ofMillis(400));
    // toBuilder copies every setting: these are all off their defaults.
    assertThat(s.toBuilder().build()).isEqualTo(s);
  }

  @Test
  void contextPropertiesOverrideTheUriCredentials() {
    S3StoreSettings s =
        S3StoreSettings.fromUri(
            URI.create("s3://bucket/p?access-key=uri-id&secret-key=uri-secret"),
            Map.of(
                S3StoreSettings.ACCESS_KEY_PROPERTY, "prop-id",
                S3StoreSettings.SECRET_KEY_PROPERTY, "prop-secret"));
    assertThat(s.accessKeyId()).contains("prop-id");
    assertThat(s.secretAccessKey()).contains("prop-secret");
  }

  @Test
  void theSecretNeverAppearsInToStringOrMessages() {
    S3StoreSettings s = parse("s3://bucket?access-key=AK&secret-key=TOPSECRET");
    assertThat(s.toString()).contains("AK").doesNotContain("TOPSECRET");
    assertThatThrownBy(() -> parse("s3://bucket:99?secret-key=TOPSECRET"))
        .hasMessageNotContaining("TOPSECRET");
    assertThatThrownBy(() -> parse("s3://bucket?secret-key=TOPSECRET"))
        .hasMessageNotContaining("TOPSECRET")
        .hasMessageContaining("accessKeyId=<none>");
    assertThatThrownBy(() -> parse("s3://bucket?secret-key=TOPSECRET&max-attempts=x"))
        .hasMessageNotContaining("TOPSECRET");
  }

  @Test
  void badPartsAreNamed() {
    assertInvalid("s3:///prefix", "bucket");
    assertInvalid("s3://UPPER/p", "bucket=UPPER");
    assertInvalid("s3://ab", "bucket=ab");
    assertInvalid("s3://bucket/a//b", "prefix=a//b/");
    assertInvalid("s3://bucket/a/../b", "prefix=a/../b/");
    assertInvalid("s3://bucket/a%20b", "prefix=a b/");
    assertInvalid("s3://bucket/p?nope=1", "parameter=nope");
    assertInvalid("s3://bucket/p?region", "parameter=region");
    assertInvalid("s3://bucket/p?region=a&region=b", "parameter=region");
    assertInvalid("s3://bucket/p?region=EU_WEST", "region=EU_WEST");
    assertInvalid("s3://bucket/p?endpoint=ftp://h", "endpoint=ftp://h");
    assertInvalid("s3://bucket/p?endpoint=%3A%3A", "endpoint");
    assertInvalid("s3://bucket/p?path-style=yes", "path-style=yes");
    assertInvalid("s3://bucket/p?max-attempts=0", "maxAttempts=0");
    assertInvalid("s3://bucket/p?max-attempts=-1", "max-attempts=-1");
    assertInvalid("s3://bucket/p?part-size-bytes=1024", "partSizeBytes=1024");
    assertInvalid(
        "s3://bucket/p?multipart-threshold-bytes=6000000", "multipartThresholdBytes=6000000");
    assertInvalid("s3://bucket/p?attempt-timeout-ms=0", "attemptTimeout");
    assertInvalid("s3://bucket/p?call-timeout-ms=10", "callTimeout");
    assertInvalid("s3://bucket/p?access-key=AK", "accessKeyId=AK");
    assertInvalid("s3://user@bucket/p", "authority");
    assertInvalid("s3://bucket/p#frag", "fragment=frag");
    assertInvalid("gs://bucket/p", "scheme=gs");
  }

  @Test
  void theProviderOpensS3UrisWithoutIo() {
    S3ObjectStoreProvider p = new S3ObjectStoreProvider();
    assertThat(p.schemes()).containsExactly("s3");
    var ctx =
        new dev.loam.spi.store.StoreContext(
            java.time.InstantSource.system(), Runnable::run, Map.of());
    try (var store =
        p.open(
            URI.create(
                "s3://bucket/pre?endpoint=http://127.0.0.1:1&region=us-east-1&access-key=a&secret-key=b"),
            ctx)) {
      assertThat(((S3ObjectStore) store).settings().prefix()).isEqualTo("pre/");
      assertThat(((S3ObjectStore) store).settings().region()).isEqualTo(Optional.of("us-east-1"));
    }
  }
}
