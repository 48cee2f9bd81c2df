package dev.loam.storage.gcs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.storage.gcs.GcsStoreSettings.Credentials;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** URI parsing: every parameter, the defaults, and INVALID naming the bad part. */
class GcsStoreSettingsTest {
  static GcsStoreSettings parse(String uri) {
    return GcsStoreSettings.fromUri(URI.create(uri), Map.of());
  }

  static void assertInvalid(String uri, String naming) {
    assertThatThrownBy(() -> parse(uri))
        .isInstanceOfSatisfying(
            LoamException.class, e -> assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining(naming);
  }

  @Test
  void bucketAndPrefix() {
    GcsStoreSettings s = parse("gs://my-bucket");
    assertThat(s.bucket()).isEqualTo("my-bucket");
    assertThat(s.prefix()).isEmpty();
    assertThat(parse("gs://my-bucket/").prefix()).isEmpty();
    assertThat(parse("gs://my-bucket/a/b").prefix()).isEqualTo("a/b/");
    assertThat(parse("gs://my-bucket/a/b/").prefix()).isEqualTo("a/b/");
    assertThat(parse("gs://under_score.bucket/x").bucket()).isEqualTo("under_score.bucket");
  }

  @Test
  void defaultsUseGoogleWithDefaultCredentialsAndBoundedRetries() {
    GcsStoreSettings s = parse("gs://b-1");
    assertThat(s.host()).isEmpty();
    assertThat(s.credentials()).isEqualTo(Credentials.DEFAULT);
    assertThat(s.maxAttempts()).isEqualTo(4);
    assertThat(s.totalTimeout()).isEqualTo(Duration.ofSeconds(60));
    assertThat(s.readTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.resumableThresholdBytes()).isEqualTo(16 * 1024 * 1024);
  }

  @Test
  void everyParameter() {
    GcsStoreSettings s =
        parse(
            "gs://b-1/p?host=http://127.0.0.1:4443&project=test&connect-timeout-ms=1500"
                + "&read-timeout-ms=2500&max-attempts=3&total-timeout-ms=9000"
                + "&retry-initial-delay-ms=50&retry-max-delay-ms=800"
                + "&resumable-threshold-bytes=1048576&resumable-chunk-bytes=524288");
    assertThat(s.host()).hasValue("http://127.0.0.1:4443");
    assertThat(s.credentials())
        .as("a host means a test server: no credentials")
        .isEqualTo(Credentials.NONE);
    assertThat(s.projectId()).hasValue("test");
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(s.readTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(s.maxAttempts()).isEqualTo(3);
    assertThat(s.totalTimeout()).isEqualTo(Duration.ofMillis(9000));
    assertThat(s.initialRetryDelay()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.maxRetryDelay()).isEqualTo(Duration.ofMillis(800));
    assertThat(s.resumableThresholdBytes()).isEqualTo(1048576);
    assertThat(s.resumableChunkBytes()).isEqualTo(524288);
    GcsStoreSettings file = parse("gs://b-1?credentials-file=/etc/key.json");
    assertThat(file.credentials()).isEqualTo(Credentials.FILE);
    assertThat(file.credentialsFile()).hasValue(Path.of("/etc/key.json"));
    // toBuilder copies every setting, the optional ones included.
    assertThat(file.toBuilder().build()).isEqualTo(file);
    assertThat(parse("gs://b-1?host=https://gcs.example:8443&credentials=default").credentials())
        .isEqualTo(Credentials.DEFAULT);
    assertThat(parse("gs://b-1?credentials=none").credentials()).isEqualTo(Credentials.NONE);
  }

  @Test
  void propertiesOverrideTheUri() {
    GcsStoreSettings s =
        GcsStoreSettings.fromUri(
            URI.create("gs://b-1?max-attempts=2"),
            Map.of("gcs.max-attempts", "5", "gcs.credentials-file", "/k.json", "other.x", "y"));
    assertThat(s.maxAttempts()).isEqualTo(5);
    assertThat(s.credentials()).isEqualTo(Credentials.FILE);
    assertThatThrownBy(
            () -> GcsStoreSettings.fromUri(URI.create("gs://b-1"), Map.of("gcs.nope", "1")))
        .hasMessageContaining("gcs.nope");
  }

  @Test
  void badPartsAreNamed() {
    assertInvalid("s3://b-1", "s3");
    assertInvalid("gs:///prefix", "bucket");
    assertInvalid("gs://B", "B");
    assertInvalid("gs://ab", "ab");
    assertInvalid("gs://b-1?colour=red", "colour");
    assertInvalid("gs://b-1?max-attempts=0", "max-attempts");
    assertInvalid("gs://b-1?max-attempts=11", "max-attempts");
    assertInvalid("gs://b-1?max-attempts=many", "max-attempts=many");
    assertInvalid("gs://b-1?read-timeout-ms=0", "read-timeout-ms");
    assertInvalid("gs://b-1?resumable-chunk-bytes=1000", "resumable-chunk-bytes");
    assertInvalid("gs://b-1?resumable-threshold-bytes=-1", "resumable-threshold-bytes");
    assertInvalid("gs://b-1?host=ftp://x", "ftp://x");
    assertInvalid("gs://b-1?credentials=maybe", "credentials=maybe");
    assertInvalid("gs://b-1?credentials=none&credentials-file=/k", "credentials");
    assertInvalid("gs://b-1?project=a&project=b", "project");
    assertInvalid("gs://b-1/a//b", "a//b");
    assertInvalid("gs://b-1/a%20b", "a b");
    assertInvalid(
        "gs://b-1?retry-initial-delay-ms=500&retry-max-delay-ms=100", "retry-max-delay-ms");
    assertInvalid("gs://user@b-1", "user");
  }

  @Test
  void theProviderIsFoundByServiceLoaderForGs() {
    assertThat(ServiceLoader.load(ObjectStoreProvider.class).stream().map(p -> p.get().schemes()))
        .contains(java.util.Set.of("gs"));
  }
}
