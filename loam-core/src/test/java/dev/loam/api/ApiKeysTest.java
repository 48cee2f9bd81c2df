package dev.loam.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.testing.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * API keys through the public {@link Log} API on one node: the secret is shown once and verifies,
 * wrong, unknown and revoked keys are refused with a typed error that never holds the secret, a
 * verification is cached and the cache is dropped on revocation, and the SCRAM credential is the
 * RFC 5802 derivation of the secret.
 */
class ApiKeysTest {
  @TempDir Path dir;

  /** The created key, its secret recorded for the suite's secret scan. */
  private static CreatedApiKey recorded(CompletableFuture<CreatedApiKey> f) throws Exception {
    CreatedApiKey k = get(f);
    dev.loam.tls.UsedSecrets.record(k.secret());
    return k;
  }

  private static <T> T get(CompletableFuture<T> f) throws Exception {
    return f.get(10, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> f) {
    ExecutionException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    return e.getCause();
  }

  @Test
  void aCreatedKeyVerifiesWithItsSecretAndIsListedWithoutIt() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      Log log = c.start("a", TestCluster.FAST).log();
      assertThat(log.hasActiveApiKeys()).isFalse();
      CreatedApiKey created =
          recorded(log.createApiKey(ApiKeySpec.inNamespace("team-a", Role.PRODUCE, Role.CONSUME)));
      ApiKey key = created.key();
      assertThat(key.id()).matches("[a-z2-7]{16}");
      assertThat(created.secret()).matches("[A-Za-z0-9_-]{43}");
      assertThat(created.token()).isEqualTo(key.id() + "." + created.secret());
      assertThat(created.toString()).doesNotContain(created.secret()).contains("***");
      assertThat(key.namespace()).isEqualTo("team-a");
      assertThat(key.roles()).containsExactlyInAnyOrder(Role.PRODUCE, Role.CONSUME);
      assertThat(key.revoked()).isFalse();
      assertThat(log.hasActiveApiKeys()).isTrue();

      List<ApiKey> listed = get(log.listApiKeys());
      assertThat(listed).containsExactly(key);
      assertThat(listed.toString()).doesNotContain(created.secret());

      Principal p = get(log.authenticate(key.id(), created.secret()));
      assertThat(p.keyId()).isEqualTo(key.id());
      assertThat(p.mayTouch("team-a", Role.PRODUCE)).isTrue();
      assertThat(p.mayTouch("team-a", Role.ADMIN)).isFalse();
      assertThat(p.mayTouch("team-b", Role.PRODUCE)).isFalse();
      assertThat(p.clusterAdmin()).isFalse();
      // Cached: the second verification needs no derivation and completes at once.
      CompletableFuture<Principal> again = log.authenticate(key.id(), created.secret());
      assertThat(again).isCompletedWithValue(p);
    }
  }

  @Test
  void wrongUnknownAndRevokedKeysAreRefusedWithoutTheSecretInTheMessage() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      Log log = c.start("a", TestCluster.FAST).log();
      CreatedApiKey k = recorded(log.createApiKey(ApiKeySpec.clusterWide(Role.CLUSTER_ADMIN)));
      String id = k.key().id();
      String wrong = k.secret().substring(1) + "x";
      Throwable t = failure(log.authenticate(id, wrong));
      assertThat(t).isInstanceOf(AuthenticationException.class);
      assertThat(((LoamException) t).kind()).isEqualTo(Kind.FENCED);
      assertThat(t.getMessage()).contains("wrong secret", "key=" + id).doesNotContain(wrong);

      t = failure(log.authenticate("zzzzzzzzzzzzzzzz", k.secret()));
      assertThat(t).isInstanceOf(AuthenticationException.class).hasMessageContaining("unknown");
      assertThat(t.getMessage()).doesNotContain(k.secret());
      // A malformed id is not echoed (it may be a secret pasted in the wrong place).
      t = failure(log.authenticate(k.secret(), k.secret()));
      assertThat(t).isInstanceOf(AuthenticationException.class);
      assertThat(t.getMessage()).doesNotContain(k.secret());
      t = failure(log.authenticate(id, "x".repeat(10_000)));
      assertThat(t).isInstanceOf(AuthenticationException.class);
      assertThat(failure(log.authenticate(null, null))).isInstanceOf(AuthenticationException.class);

      // Verified (and cached), then revoked: refused from the revocation's apply on.
      Principal before = get(log.authenticate(id, k.secret()));
      assertThat(log.activePrincipal(id)).contains(before);
      assertThat(log.activePrincipal("zzzzzzzzzzzzzzzz")).isEmpty();
      assertThat(log.activePrincipal(null)).isEmpty();
      ApiKey revoked = get(log.revokeApiKey(id));
      assertThat(revoked.revoked()).isTrue();
      assertThat(revoked.revokedAtMillis()).isGreaterThanOrEqualTo(k.key().createdAtMillis());
      t = failure(log.authenticate(id, k.secret()));
      assertThat(t).isInstanceOf(AuthenticationException.class).hasMessageContaining("revoked");
      assertThat(log.hasActiveApiKeys()).isFalse();
      assertThat(get(log.listApiKeys())).containsExactly(revoked);
      // Revoking again is idempotent; an unknown id is NOT_FOUND.
      assertThat(get(log.revokeApiKey(id))).isEqualTo(revoked);
      t = failure(log.revokeApiKey("zzzzzzzzzzzzzzzz"));
      assertThat(((LoamException) t).kind()).isEqualTo(Kind.NOT_FOUND);
      assertThat(log.scramCredential(id, ScramCredential.SCRAM_SHA_256)).isEmpty();
      assertThat(log.activePrincipal(id)).isEmpty();
    }
  }

  @Test
  void badSpecsAreRefusedInvalid() throws Exception {
    assertThatThrownBy(() -> new ApiKeySpec(null, EnumSet.noneOf(Role.class)))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("at least one role");
    assertThatThrownBy(() -> ApiKeySpec.inNamespace("a", Role.CLUSTER_ADMIN))
        .hasMessageContaining("cluster-wide");
    assertThat(Role.parse("Cluster-Admin")).isEqualTo(Role.CLUSTER_ADMIN);
    assertThatThrownBy(() -> Role.parse("root"))
        .hasMessageContaining("unknown role")
        .hasMessageEndingWith("role=root");
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      Log log = c.start("a", TestCluster.FAST).log();
      Throwable t = failure(log.createApiKey(ApiKeySpec.inNamespace("no spaces", Role.PRODUCE)));
      assertThat(((LoamException) t).kind()).isEqualTo(Kind.INVALID);
      assertThat(get(log.listApiKeys())).isEmpty();
    }
  }

  @Test
  void theScramCredentialIsTheRfc5802DerivationOfTheSecret() throws Exception {
    try (TestCluster c = new TestCluster(dir.resolve("meta"))) {
      Log log = c.start("a", TestCluster.FAST).log();
      CreatedApiKey k = recorded(log.createApiKey(ApiKeySpec.clusterWide(Role.PRODUCE)));
      for (String[] m :
          new String[][] {
            {ScramCredential.SCRAM_SHA_256, "PBKDF2WithHmacSHA256", "HmacSHA256", "SHA-256", "256"},
            {ScramCredential.SCRAM_SHA_512, "PBKDF2WithHmacSHA512", "HmacSHA512", "SHA-512", "512"}
          }) {
        ScramCredential cred = log.scramCredential(k.key().id(), m[0]).orElseThrow();
        assertThat(cred.iterations()).isEqualTo(4096);
        assertThat(cred.salt()).hasSize(16);
        assertThat(cred.toString()).contains("***");
        byte[] salted =
            SecretKeyFactory.getInstance(m[1])
                .generateSecret(
                    new PBEKeySpec(
                        k.secret().toCharArray(),
                        cred.salt(),
                        cred.iterations(),
                        Integer.parseInt(m[4])))
                .getEncoded();
        Mac mac = Mac.getInstance(m[2]);
        mac.init(new SecretKeySpec(salted, m[2]));
        byte[] clientKey = mac.doFinal("Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] serverKey = mac.doFinal("Server Key".getBytes(StandardCharsets.US_ASCII));
        assertThat(cred.storedKey()).isEqualTo(MessageDigest.getInstance(m[3]).digest(clientKey));
        assertThat(cred.serverKey()).isEqualTo(serverKey);
      }
      assertThatThrownBy(() -> log.scramCredential(k.key().id(), "PLAIN"))
          .isInstanceOf(LoamException.class)
          .hasMessageContaining("mechanism=PLAIN");
      assertThat(log.scramCredential("zzzzzzzzzzzzzzzz", ScramCredential.SCRAM_SHA_256)).isEmpty();
    }
  }
}
