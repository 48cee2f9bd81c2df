package dev.loam.kms.aws;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KmsContractTest;
import dev.loam.kms.KmsUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kms.KmsAsyncClient;

/**
 * The kit on {@link AwsKeyManagementService}, through the real AWS SDK v2 client, against {@link
 * LocalKmsEndpoint}: every request the SDK sends is checked for its KMS shape and a valid SigV4
 * signature, and the SDK parses KMS-shaped answers. What only AWS can show (its own key states,
 * policies and deletion) is not tested here; see docs/reference/kms.md.
 */
class AwsKmsContractTest extends KmsContractTest {
  LocalKmsEndpoint endpoint;

  /**
   * One HTTP client for every case: closing a Netty client waits out its event loop's quiet period,
   * seconds per case. A KMS client built with a given HTTP client leaves it open.
   */
  static final SdkAsyncHttpClient HTTP = NettyNioAsyncHttpClient.builder().build();

  static KmsAsyncClient client(LocalKmsEndpoint endpoint) {
    return client(endpoint, Duration.ofSeconds(5));
  }

  static KmsAsyncClient client(LocalKmsEndpoint endpoint, Duration timeout) {
    return KmsAsyncClient.builder()
        .httpClient(HTTP)
        .endpointOverride(endpoint.uri())
        .region(Region.of(LocalKmsEndpoint.REGION))
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(
                    LocalKmsEndpoint.ACCESS_KEY, LocalKmsEndpoint.SECRET_KEY)))
        .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD).apiCallTimeout(timeout))
        .build();
  }

  @Override
  protected KeyManagementService newKms() throws Exception {
    endpoint = new LocalKmsEndpoint();
    return new AwsKeyManagementService(client(endpoint), "loam/test/", 7);
  }

  @Override
  protected KeyManagementService openAnotherHandle() {
    return new AwsKeyManagementService(client(endpoint), "loam/test/", 7);
  }

  @AfterEach
  void everyRequestWasSignedAndShapedLikeKms() {
    assertThat(endpoint.signatureFailures).isEmpty();
    endpoint.close();
  }

  /** The endpoint's signature check is real: a request signed with another secret is refused. */
  @Test
  void aRequestSignedWithTheWrongSecretIsRefused() {
    KmsAsyncClient wrong =
        KmsAsyncClient.builder()
            .httpClient(HTTP)
            .endpointOverride(endpoint.uri())
            .region(Region.of(LocalKmsEndpoint.REGION))
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(LocalKmsEndpoint.ACCESS_KEY, "not-the-secret")))
            .build();
    try (KeyManagementService k = new AwsKeyManagementService(wrong, "loam/test/", 7)) {
      LoamException e = assertFailsWith(LoamException.class, () -> k.create("ns-a"));
      assertThat(e.getMessage()).contains("code=InvalidSignatureException");
    }
    assertThat(endpoint.signatureFailures).containsOnly("signature mismatch");
    endpoint.signatureFailures.clear();
  }

  @Test
  void destroyDisablesAndSchedulesDeletion() {
    await(kms.create("ns-a"));
    await(kms.destroy("ns-a"));
    assertThat(endpoint.operations())
        .containsSubsequence(
            "CreateKey", "CreateAlias", "DescribeKey", "DisableKey", "ScheduleKeyDeletion");
  }

  @Test
  void aServiceErrorIsUnavailableAndRetriedBySdk() {
    await(kms.create("ns-a"));
    endpoint.failNext.set(1);
    // The SDK's standard retry absorbs one 503.
    assertThat(await(kms.current("ns-a")).version()).isEqualTo(1);
    endpoint.failNext.set(100);
    KmsUnavailableException e =
        assertFailsWith(KmsUnavailableException.class, () -> kms.wrap("ns-a", new byte[32]));
    assertThat(e.getMessage()).contains("status=503").contains("namespace=ns-a");
    endpoint.failNext.set(0);
  }

  @Test
  void aSlowServiceTimesOutAsUnavailable() {
    await(kms.create("ns-a"));
    try (KeyManagementService impatient =
        new AwsKeyManagementService(client(endpoint, Duration.ofMillis(500)), "loam/test/", 7)) {
      endpoint.delayMillis = 1_000;
      KmsUnavailableException e =
          assertFailsWith(
              KmsUnavailableException.class, () -> impatient.wrap("ns-a", new byte[32]));
      assertThat(e.getMessage()).contains("namespace=ns-a");
    } finally {
      endpoint.delayMillis = 0;
    }
  }
}
