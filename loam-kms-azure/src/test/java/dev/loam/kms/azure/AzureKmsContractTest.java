package dev.loam.kms.azure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.azure.core.credential.AccessToken;
import com.azure.core.credential.TokenCredential;
import com.azure.core.http.HttpClient;
import com.azure.core.http.netty.NettyAsyncHttpClientBuilder;
import com.azure.core.http.policy.FixedDelayOptions;
import com.azure.core.http.policy.RetryOptions;
import com.azure.security.keyvault.keys.KeyAsyncClient;
import com.azure.security.keyvault.keys.KeyClientBuilder;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KmsContractTest;
import dev.loam.kms.KmsUnavailableException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The kit on {@link AzureKeyManagementService}, through the real azure-security-keyvault-keys
 * client (its challenge authentication, retries and JSON models) over HTTPS, against {@link
 * LocalKeyVault}: every request must come through Key Vault's challenge with the test credential's
 * token for the challenge's scope, and carry its api-version. What only Azure can show (access
 * control, its own soft-delete and purge) is not tested here; see docs/reference/kms.md.
 */
class AzureKmsContractTest extends KmsContractTest {
  LocalKeyVault vault;
  final List<String> scopes = new CopyOnWriteArrayList<>();

  KeyAsyncClient client(Duration timeout, String token) throws Exception {
    SslContext ssl =
        SslContextBuilder.forClient().trustManager(TestTls.shared().certificate()).build();
    HttpClient http =
        new NettyAsyncHttpClientBuilder(
                reactor.netty.http.client.HttpClient.create().secure(s -> s.sslContext(ssl)))
            .responseTimeout(timeout)
            .build();
    TokenCredential credential =
        request -> {
          scopes.addAll(request.getScopes());
          return Mono.just(new AccessToken(token, OffsetDateTime.now().plusHours(1)));
        };
    return new KeyClientBuilder()
        .vaultUrl(vault.url())
        .credential(credential)
        .httpClient(http)
        // The challenge names https://vault.azure.net, which a vault on 127.0.0.1 is not.
        .disableChallengeResourceVerification()
        .retryOptions(new RetryOptions(new FixedDelayOptions(2, Duration.ofMillis(20))))
        .buildAsyncClient();
  }

  AzureKeyManagementService service(Duration timeout, String token) throws Exception {
    return new AzureKeyManagementService(
        client(timeout, token), "loam-test-", Duration.ofMillis(20));
  }

  @Override
  protected KeyManagementService newKms() throws Exception {
    vault = new LocalKeyVault(TestTls.shared());
    return service(Duration.ofSeconds(5), LocalKeyVault.TOKEN);
  }

  @Override
  protected KeyManagementService openAnotherHandle() throws Exception {
    return service(Duration.ofSeconds(5), LocalKeyVault.TOKEN);
  }

  @AfterEach
  void everyRequestCameThroughTheChallengeWithTheToken() {
    assertThat(vault.protocolFailures).isEmpty();
    if (!vault.operations.isEmpty()) {
      assertThat(vault.challenges.get()).as("challenges answered").isPositive();
      assertThat(scopes).containsOnly("https://vault.azure.net/.default");
    }
    vault.close();
  }

  /** The vault's token check is real: a client whose credential gives another token is refused. */
  @Test
  void aRequestWithAnotherTokenIsRefused() throws Exception {
    try (KeyManagementService k = service(Duration.ofSeconds(5), "not-the-token")) {
      LoamException e = assertFailsWith(LoamException.class, () -> k.create("ns-a"));
      assertThat(e.getMessage()).contains("status=401").contains("namespace=ns-a");
    }
    assertThat(vault.protocolFailures).contains("authorization not the test token");
    vault.protocolFailures.clear();
  }

  @Test
  void keyNamesAreHashedNamespacesUnderThePrefix() {
    assertThat(AzureKeyManagementService.keyName("loam-test-", "Tenant.a"))
        .matches("loam-test-n[0-9a-f]{40}")
        .isNotEqualTo(AzureKeyManagementService.keyName("loam-test-", "tenant.a"));
    assertThatThrownBy(
            () ->
                new AzureKeyManagementService(
                    client(Duration.ofSeconds(1), "t"), "a_b", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefix=a_b");
  }

  @Test
  void wrappedKeysNameTheirVersionAndMalformedOnesAreCorruption() {
    await(kms.create("ns-a"));
    byte[] w = await(kms.wrap("ns-a", new byte[32]));
    AzureWrappedKey k = AzureWrappedKey.decode(w, "ns-a");
    assertThat(k.version()).matches("[0-9a-f]{32}");
    assertThat(k.encryptedKey()).hasSize(256); // RSA-2048 of the local vault
    for (byte[] bad :
        List.of(new byte[] {2, 1, 'a', 0}, new byte[] {1, 0, 'a', 0}, new byte[] {1, 1, '/', 0})) {
      assertThatThrownBy(() -> AzureWrappedKey.decode(bad, "ns-a"))
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("namespace=ns-a");
    }
  }

  @Test
  void wrapAndUnwrapAreTheVaultsKeyOperations() {
    await(kms.create("ns-a"));
    byte[] w = await(kms.wrap("ns-a", new byte[32]));
    assertThat(await(kms.unwrap("ns-a", w))).isEqualTo(new byte[32]);
    assertThat(vault.operations()).containsSubsequence("POST wrapkey", "POST unwrapkey");
  }

  @Test
  void destroyDeletesTheKey() {
    await(kms.create("ns-a"));
    await(kms.destroy("ns-a"));
    assertThat(vault.operations())
        .containsSubsequence("POST create", "GET key", "DELETE key", "GET deletedkey");
  }

  @Test
  void aServiceErrorIsUnavailableAndRetriedByTheClient() {
    await(kms.create("ns-a"));
    vault.failNext.set(1);
    // The client's retry policy absorbs one 503.
    assertThat(await(kms.current("ns-a")).version()).isEqualTo(1);
    vault.failNext.set(100);
    KmsUnavailableException e =
        assertFailsWith(KmsUnavailableException.class, () -> kms.wrap("ns-a", new byte[32]));
    assertThat(e.getMessage()).contains("status=503").contains("namespace=ns-a");
    vault.failNext.set(0);
  }

  @Test
  void aSlowServiceTimesOutAsUnavailable() throws Exception {
    await(kms.create("ns-a"));
    try (KeyManagementService impatient = service(Duration.ofMillis(300), LocalKeyVault.TOKEN)) {
      vault.delayMillis = 1_000;
      KmsUnavailableException e =
          assertFailsWith(KmsUnavailableException.class, () -> impatient.current("ns-a"));
      assertThat(e.getMessage()).contains("namespace=ns-a");
    } finally {
      vault.delayMillis = 0;
    }
  }
}
