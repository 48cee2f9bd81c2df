package dev.loam.kms.gcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.api.gax.core.FixedCredentialsProvider;
import com.google.api.gax.grpc.GrpcHeaderInterceptor;
import com.google.api.gax.grpc.GrpcTransportChannel;
import com.google.api.gax.rpc.FixedTransportChannelProvider;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.KeyManagementServiceSettings;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KmsContractTest;
import dev.loam.kms.KmsUnavailableException;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import java.io.IOException;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The kit on {@link GcpKeyManagementService}, through the real google-cloud-kms client (its gRPC
 * stub, retries and credentials), against {@link LocalCloudKms}: every call is checked for the
 * bearer token, the client identification header and a routing header that names the request's
 * resource, and Encrypt and Decrypt for their CRC32C checksums. What only Google can show (IAM, its
 * own key states and destruction) is not tested here; see docs/reference/kms.md.
 */
class GcpKmsContractTest extends KmsContractTest {
  LocalCloudKms endpoint;
  final List<ManagedChannel> channels = new CopyOnWriteArrayList<>();

  KeyManagementServiceClient client(Duration timeout, String token) throws IOException {
    // The client's own channel provider installs gax's header interceptor, which sends the client
    // identification and the routing headers; an in-process channel gets the same one here.
    ManagedChannel channel =
        InProcessChannelBuilder.forName(endpoint.name)
            .intercept(
                new GrpcHeaderInterceptor(
                    KeyManagementServiceSettings.defaultApiClientHeaderProviderBuilder()
                        .build()
                        .getHeaders()))
            .build();
    channels.add(channel);
    KeyManagementServiceSettings.Builder b =
        KeyManagementServiceSettings.newBuilder()
            .setTransportChannelProvider(
                FixedTransportChannelProvider.create(GrpcTransportChannel.create(channel)))
            .setCredentialsProvider(
                FixedCredentialsProvider.create(
                    GoogleCredentials.create(
                        new AccessToken(token, new Date(System.currentTimeMillis() + 3_600_000)))));
    b.applyToAllUnaryMethods(
        s -> {
          s.setRetrySettings(
              s.getRetrySettings().toBuilder()
                  .setTotalTimeoutDuration(timeout)
                  .setInitialRpcTimeoutDuration(timeout)
                  .setMaxRpcTimeoutDuration(timeout)
                  .build());
          return null;
        });
    return KeyManagementServiceClient.create(b.build());
  }

  GcpKeyManagementService service(Duration timeout, String token) throws IOException {
    return new GcpKeyManagementService(
        client(timeout, token), LocalCloudKms.KEY_RING, "loam-test-");
  }

  @Override
  protected KeyManagementService newKms() throws Exception {
    endpoint = new LocalCloudKms();
    return service(Duration.ofSeconds(5), LocalCloudKms.TOKEN);
  }

  @Override
  protected KeyManagementService openAnotherHandle() throws Exception {
    return service(Duration.ofSeconds(5), LocalCloudKms.TOKEN);
  }

  @AfterEach
  void everyCallCarriedTheTokenAndItsRoutingHeader() {
    assertThat(endpoint.protocolFailures).isEmpty();
    channels.forEach(ManagedChannel::shutdownNow);
    endpoint.close();
  }

  /** The endpoint's token check is real: a client with another token is refused. */
  @Test
  void aCallWithAnotherTokenIsRefused() throws Exception {
    try (KeyManagementService k = service(Duration.ofSeconds(5), "not-the-token")) {
      LoamException e = assertFailsWith(LoamException.class, () -> k.create("ns-a"));
      assertThat(e.getMessage()).contains("code=UNAUTHENTICATED").contains("namespace=ns-a");
    }
    assertThat(endpoint.protocolFailures).containsOnly("authorization not the test token");
    endpoint.protocolFailures.clear();
  }

  @Test
  void keyIdsAreHashedNamespacesUnderThePrefix() {
    assertThat(GcpKeyManagementService.cryptoKeyId("loam-test-", "Tenant.a"))
        .matches("loam-test-n[0-9a-f]{40}")
        .isNotEqualTo(GcpKeyManagementService.cryptoKeyId("loam-test-", "tenant.a"));
    assertThat(GcpKeyManagementService.cryptoKeyId("p".repeat(22), "x".repeat(128))).hasSize(63);
    assertThatThrownBy(() -> new GcpKeyManagementService(null, LocalCloudKms.KEY_RING, "x"))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void aMalformedKeyRingOrPrefixIsRefusedNamingIt() throws Exception {
    KeyManagementServiceClient c = client(Duration.ofSeconds(5), LocalCloudKms.TOKEN);
    try {
      assertThatThrownBy(() -> new GcpKeyManagementService(c, "projects/p/keyRings/r", ""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyRing=projects/p/keyRings/r");
      assertThatThrownBy(() -> new GcpKeyManagementService(c, LocalCloudKms.KEY_RING, "a.b"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("prefix=a.b");
    } finally {
      c.close();
    }
  }

  @Test
  void destroySchedulesTheDestructionOfEveryVersion() {
    await(kms.create("ns-a"));
    await(kms.rotate("ns-a"));
    await(kms.rotate("ns-a"));
    await(kms.destroy("ns-a"));
    List<String> ops = endpoint.operations();
    assertThat(ops)
        .containsSubsequence(
            "CreateCryptoKey",
            "CreateCryptoKeyVersion",
            "UpdateCryptoKeyPrimaryVersion",
            "GetCryptoKey",
            "ListCryptoKeyVersions",
            "ListCryptoKeyVersions");
    assertThat(ops.stream().filter("DestroyCryptoKeyVersion"::equals)).hasSize(3);
  }

  @Test
  void aServiceErrorIsUnavailableAndRetriedByTheClient() throws Exception {
    await(kms.create("ns-a"));
    endpoint.failNext.set(1);
    // The client's retry settings for GetCryptoKey retry UNAVAILABLE.
    assertThat(await(kms.current("ns-a")).version()).isEqualTo(1);
    try (KeyManagementService impatient = service(Duration.ofSeconds(1), LocalCloudKms.TOKEN)) {
      endpoint.failNext.set(1_000);
      KmsUnavailableException e =
          assertFailsWith(
              KmsUnavailableException.class, () -> impatient.wrap("ns-a", new byte[32]));
      assertThat(e.getMessage()).contains("namespace=ns-a");
    } finally {
      endpoint.failNext.set(0);
    }
  }

  @Test
  void aSlowServiceTimesOutAsUnavailable() throws Exception {
    await(kms.create("ns-a"));
    try (KeyManagementService impatient = service(Duration.ofMillis(500), LocalCloudKms.TOKEN)) {
      endpoint.delayMillis = 1_000;
      KmsUnavailableException e =
          assertFailsWith(
              KmsUnavailableException.class, () -> impatient.wrap("ns-a", new byte[32]));
      assertThat(e.getMessage()).contains("DEADLINE_EXCEEDED").contains("namespace=ns-a");
    } finally {
      endpoint.delayMillis = 0;
    }
  }

  @Test
  void aResponseWhoseChecksumDoesNotMatchIsUnavailable() {
    await(kms.create("ns-a"));
    endpoint.keys.damageCiphertextChecksum = true;
    KmsUnavailableException e =
        assertFailsWith(KmsUnavailableException.class, () -> kms.wrap("ns-a", new byte[32]));
    assertThat(e.getMessage()).contains("integrity check").contains("namespace=ns-a");
    endpoint.keys.damageCiphertextChecksum = false;
    assertThat(await(kms.wrap("ns-a", new byte[32]))).isNotEmpty();
  }
}
