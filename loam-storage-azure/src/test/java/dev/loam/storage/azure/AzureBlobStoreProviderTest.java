package dev.loam.storage.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectStoreProvider;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** URI and property parsing of {@code azblob://}; no I/O. */
class AzureBlobStoreProviderTest {
  private static final String KEY = "abc+/def==";

  private static AzureBlobStoreSettings parse(String uri) {
    return AzureBlobStoreProvider.parse(URI.create(uri), Map.of());
  }

  private static LoamException invalid(String uri, Map<String, String> props) {
    Throwable t =
        org.assertj.core.api.Assertions.catchThrowable(
            () -> AzureBlobStoreProvider.parse(URI.create(uri), props));
    assertThat(t).isInstanceOf(LoamException.class);
    LoamException e = (LoamException) t;
    assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
    return e;
  }

  @Test
  void theProviderIsRegistered() {
    assertThat(ServiceLoader.load(ObjectStoreProvider.class).stream())
        .anyMatch(p -> p.type() == AzureBlobStoreProvider.class);
    assertThat(new AzureBlobStoreProvider().schemes()).containsExactly("azblob");
  }

  @Test
  void accountContainerAndPrefix() {
    AzureBlobStoreSettings s = parse("azblob://myacct/logs/loam/prod");
    assertThat(s.accountName()).isEqualTo("myacct");
    assertThat(s.container()).isEqualTo("logs");
    assertThat(s.prefix()).isEqualTo("loam/prod/");
    assertThat(s.effectiveEndpoint()).isEqualTo("https://myacct.blob.core.windows.net");
    assertThat(s.credentialKind()).isEqualTo("default-chain");
    assertThat(parse("azblob://myacct/logs").prefix()).isEmpty();
    assertThat(parse("azblob://myacct/logs/").prefix()).isEmpty();
    assertThat(parse("azblob://myacct/logs/p/").prefix()).isEqualTo("p/");
  }

  @Test
  void theEmulatorAccountUsesItsPublishedKeyUnlessGivenOne() {
    AzureBlobStoreSettings s =
        parse("azblob://devstoreaccount1/c01?endpoint=http://127.0.0.1:10000/devstoreaccount1");
    assertThat(s.endpoint()).isEqualTo("http://127.0.0.1:10000/devstoreaccount1");
    assertThat(s.credentialKind()).isEqualTo("emulator-key");
  }

  @Test
  void everyParameter() {
    AzureBlobStoreSettings s =
        parse(
            "azblob://acct/cont/pre?endpoint=http://localhost:1/acct&create-container=true"
                + "&connect-timeout-ms=1500&response-timeout-ms=2500&try-timeout-ms=9000"
                + "&max-tries=5&retry-delay-ms=50&max-retry-delay-ms=700"
                + "&block-upload-threshold-bytes=2097152&block-size-bytes=1048576"
                + "&block-upload-concurrency=3&max-connections=7&max-list-requests=2");
    assertThat(s.endpoint()).isEqualTo("http://localhost:1/acct");
    assertThat(s.createContainer()).isTrue();
    assertThat(s.connectTimeout()).isEqualTo(Duration.ofMillis(1500));
    assertThat(s.responseTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(s.tryTimeout()).isEqualTo(Duration.ofMillis(9000));
    assertThat(s.maxTries()).isEqualTo(5);
    assertThat(s.retryDelay()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.maxRetryDelay()).isEqualTo(Duration.ofMillis(700));
    assertThat(s.blockUploadThresholdBytes()).isEqualTo(2097152);
    assertThat(s.blockSizeBytes()).isEqualTo(1048576);
    assertThat(s.blockUploadConcurrency()).isEqualTo(3);
    assertThat(s.maxConnections()).isEqualTo(7);
    assertThat(s.maxListRequests()).isEqualTo(2);
    assertThat(AzureBlobStoreProvider.URI_PARAMETERS.parameters()).hasSize(16);
    // toBuilder copies every setting: these are all off their defaults.
    assertThat(s.toBuilder().build()).isEqualTo(s);
  }

  @Test
  void secretsArePercentDecodedKeepPlusAndNeverShow() {
    AzureBlobStoreSettings s = parse("azblob://acct/cont?account-key=abc+%2Fdef%3D%3D");
    assertThat(s.accountKey()).isEqualTo(KEY);
    assertThat(s.credentialKind()).isEqualTo("account-key");
    assertThat(s.toString()).doesNotContain("abc").contains("accountKey=***");
    String sas = "sv=2024-01-01&sig=SECRETSIG";
    AzureBlobStoreSettings withSas =
        parse("azblob://acct/cont?sas=sv%3D2024-01-01%26sig%3DSECRETSIG");
    assertThat(withSas.sasToken()).isEqualTo(sas);
    assertThat(withSas.toString()).doesNotContain("SECRETSIG");
    LoamException e = invalid("azblob://acct/cont?account-key=SECRET&max-tries=x", Map.of());
    assertThat(e.getMessage()).contains("max-tries").doesNotContain("SECRET");
  }

  @Test
  void propertiesOverrideTheUri() {
    AzureBlobStoreSettings s =
        AzureBlobStoreProvider.parse(
            URI.create("azblob://acct/cont?max-tries=2&account-key=fromuri"),
            Map.of(
                "azure.max-tries", "4",
                "azure.connection-string", "DefaultEndpointsProtocol=https;AccountName=acct",
                "other.setting", "ignored"));
    assertThat(s.maxTries()).isEqualTo(4);
    assertThat(s.accountKey()).isEqualTo("fromuri");
    assertThat(s.credentialKind()).isEqualTo("connection-string");
    assertThat(s.toString()).doesNotContain("DefaultEndpointsProtocol").doesNotContain("fromuri");
  }

  @Test
  void badPartsAreNamed() {
    assertThat(invalid("azblob:///cont", Map.of()).getMessage()).contains("missing account");
    assertThat(invalid("azblob://acct", Map.of()).getMessage()).contains("missing container");
    assertThat(invalid("azblob://acct/", Map.of()).getMessage()).contains("missing container");
    assertThat(invalid("azblob://Acct/cont", Map.of()).getMessage()).contains("account=Acct");
    assertThat(invalid("azblob://acct/Bad_Container", Map.of()).getMessage())
        .contains("container=Bad_Container");
    assertThat(invalid("azblob://acct/ab", Map.of()).getMessage()).contains("container=ab");
    assertThat(invalid("azblob://acct/cont/a//b", Map.of()).getMessage()).contains("prefix");
    assertThat(invalid("azblob://acct/cont/a/../b", Map.of()).getMessage()).contains("prefix");
    assertThat(invalid("azblob://user:pw@acct/cont", Map.of()).getMessage())
        .contains("bare account")
        .doesNotContain("pw");
    assertThat(invalid("azblob://acct:443/cont", Map.of()).getMessage()).contains("bare account");
    assertThat(invalid("azblob://acct/cont?max-trys=3", Map.of()).getMessage())
        .contains("parameter=max-trys");
    assertThat(invalid("azblob://acct/cont?max-tries=3&max-tries=4", Map.of()).getMessage())
        .contains("twice");
    assertThat(invalid("azblob://acct/cont?max-tries=0", Map.of()).getMessage())
        .contains("max-tries");
    assertThat(invalid("azblob://acct/cont?try-timeout-ms=500", Map.of()).getMessage())
        .contains("try-timeout-ms");
    assertThat(invalid("azblob://acct/cont?max-tries=99999999999", Map.of()).getMessage())
        .contains("max-tries");
    assertThat(invalid("azblob://acct/cont?create-container=yes", Map.of()).getMessage())
        .contains("create-container");
    assertThat(invalid("azblob://acct/cont?endpoint=ftp://x", Map.of()).getMessage())
        .contains("endpoint");
    assertThat(invalid("azblob://acct/cont", Map.of("azure.nope", "1")).getMessage())
        .contains("property=azure.nope");
    assertThat(invalid("azblob://acct/cont?block-upload-threshold-bytes=-1", Map.of()).getMessage())
        .contains("blockUploadThresholdBytes");
    assertThat(invalid("s3://acct/cont", Map.of()).getMessage()).contains("scheme=s3");
  }

  @Test
  void aPrefixThatLeavesNoRoomForKeysIsRejected() {
    String longPrefix = "p".repeat(1024);
    assertThat(invalid("azblob://acct/cont/" + longPrefix, Map.of()).getMessage())
        .contains("prefix");
  }

  @Test
  void settingsRejectBadValuesDirectly() {
    assertThatThrownBy(
            () ->
                AzureBlobStoreSettings.of("acct", "cont")
                    .withRetries(3, Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("maxRetryDelay");
    assertThat(AzureBlobStoreSettings.of("acct", "a-b").container()).isEqualTo("a-b");
    assertThatThrownBy(() -> AzureBlobStoreSettings.of("acct", "a--b"))
        .hasMessageContaining("container=a--b");
    assertThatThrownBy(() -> AzureBlobStoreSettings.of("acct", "-ab"))
        .hasMessageContaining("container=-ab");
  }
}
