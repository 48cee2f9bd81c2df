package dev.loam.core.auth;

import dev.loam.api.ApiKey;
import dev.loam.api.ApiKeySpec;
import dev.loam.api.AuthenticationException;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.Principal;
import dev.loam.api.Role;
import dev.loam.api.ScramCredential;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.Applied;
import dev.loam.meta.MetaReader;
import dev.loam.meta.command.ApiKeyInfo;
import dev.loam.meta.command.ApiKeyRole;
import dev.loam.meta.command.CreateApiKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RevokeApiKey;
import dev.loam.meta.command.ScramSecrets;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * The API keys of one node (docs/security.md): creates keys (the secret generated here, only its
 * SCRAM values proposed), lists and revokes them, and verifies presented keys against the local
 * replica.
 *
 * <p>Verification derives the presented secret's {@code ClientKey} with the key's salt and
 * iteration count (PBKDF2, thousands of HMACs: milliseconds of CPU), so it runs on {@code
 * verifyExecutor}, never on the caller's thread, and a success is cached ({@link VerifiedCache},
 * bounded, {@link #CACHE_TTL_MILLIS}). Every verification, cached or not, also checks the key in
 * the local replica, so a revocation applied here is refused from that apply on; the apply listener
 * drops the key's cache entries too.
 *
 * <p>Thread-safe.
 */
public final class ApiKeys {
  /** PBKDF2 iterations of a new key: Kafka's SCRAM default. */
  public static final int ITERATIONS = ScramSecrets.MIN_ITERATIONS;

  /** Secret length in random bytes (256 bits), written as unpadded base64url (43 characters). */
  public static final int SECRET_BYTES = 32;

  /** How long a successful verification is reused without deriving again. */
  public static final long CACHE_TTL_MILLIS = 60_000;

  /** Cached verifications at most. */
  public static final int CACHE_ENTRIES = 10_000;

  /** The longest secret verified: longer ones are refused before any derivation. */
  static final int MAX_SECRET_CHARS = 256;

  private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

  private final NodeContext ctx;
  private final RandomGenerator secretRandom;
  private final Executor verifyExecutor;
  private final VerifiedCache cache = new VerifiedCache(CACHE_ENTRIES, CACHE_TTL_MILLIS);

  /** Recomputed on the next {@link #hasActiveKeys} after a key command is applied. */
  private volatile boolean activeDirty = true;

  private volatile boolean active;

  /**
   * @param secretRandom cryptographically strong randomness for ids, salts and secrets (a {@code
   *     SecureRandom} in production)
   * @param verifyExecutor where key derivations run (a bounded pool, never an event loop)
   */
  public ApiKeys(NodeContext ctx, RandomGenerator secretRandom, Executor verifyExecutor) {
    this.ctx = ctx;
    this.secretRandom = secretRandom;
    this.verifyExecutor = verifyExecutor;
  }

  /**
   * Told of every applied command (a metastore apply listener): a key created or revoked changes
   * whether any is active, and a revocation drops the key's cached verifications.
   */
  public void onApplied(Outcome outcome) {
    if (outcome instanceof Outcome.ApiKeyRevoked r) {
      cache.dropKey(r.key().id());
      activeDirty = true;
    } else if (outcome instanceof Outcome.ApiKeyCreated) {
      activeDirty = true;
    }
  }

  /** Whether a key that is not revoked exists on the local replica. */
  public boolean hasActiveKeys() {
    if (activeDirty) {
      // Cleared before the read: a key command applied during it sets the flag again.
      activeDirty = false;
      active = ctx.meta().read(r -> r.apiKeys().stream().anyMatch(k -> !k.revoked()));
    }
    return active;
  }

  public CompletableFuture<CreatedApiKey> create(ApiKeySpec spec) {
    if (spec == null) {
      return CompletableFuture.failedFuture(new LoamException(Kind.INVALID, "no API key spec"));
    }
    String id = newId();
    String secret = newSecret();
    byte[] salt = new byte[ScramSecrets.SALT_BYTES];
    secretRandom.nextBytes(salt);
    CompletableFuture<ScramSecrets> derived =
        CompletableFuture.supplyAsync(() -> derive(secret, salt), verifyExecutor);
    return derived
        .thenCompose(
            s ->
                ctx.meta()
                    .propose(new CreateApiKey(ctx.origin(), id, spec.namespace(), roles(spec), s)))
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, "key=" + id);
              }
              return new CreatedApiKey(
                  describe(((Outcome.ApiKeyCreated) a.outcome()).key()), secret);
            });
  }

  public List<ApiKey> list() {
    return ctx.meta().read(r -> r.apiKeys().stream().map(ApiKeys::describe).toList());
  }

  public CompletableFuture<ApiKey> revoke(String id) {
    if (id == null) {
      return CompletableFuture.failedFuture(new LoamException(Kind.INVALID, "no API key id"));
    }
    return ctx.meta()
        .propose(new RevokeApiKey(ctx.origin(), id))
        .thenApply(
            (Applied a) -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, "key=" + shortened(id));
              }
              return describe(((Outcome.ApiKeyRevoked) a.outcome()).key());
            });
  }

  /**
   * Verifies {@code secret} for {@code keyId}: completes at once for a fresh cached success or a
   * key that is unknown or revoked here, and after the derivation on {@code verifyExecutor}
   * otherwise. Fails {@link AuthenticationException}; its message never holds the secret.
   */
  public CompletableFuture<Principal> authenticate(String keyId, String secret) {
    if (keyId == null || secret == null || !ApiKeyInfo.isValidId(keyId)) {
      // Not echoed: a malformed id may be a secret pasted in the wrong place.
      return refused("unknown API key: not a key id (16 characters of a-z, 2-7)");
    }
    if (secret.isEmpty() || secret.length() > MAX_SECRET_CHARS) {
      return refused("wrong secret for API key key=" + keyId);
    }
    ApiKeyInfo k = ctx.meta().read((MetaReader r) -> r.apiKey(keyId)).orElse(null);
    if (k == null) {
      return refused("unknown API key key=" + keyId);
    }
    if (k.revoked()) {
      return refused("revoked API key key=" + keyId);
    }
    String secretHash = sha256(secret);
    Principal cached = cache.get(keyId, secretHash, ctx.clock().millis());
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    ScramSecrets s = k.secrets();
    return CompletableFuture.supplyAsync(
        () -> {
          byte[] presented = ScramDerivation.SHA_256.storedKey(secret, s.salt(), s.iterations());
          if (!MessageDigest.isEqual(presented, s.storedKey256())) {
            throw new AuthenticationException("wrong secret for API key key=" + keyId);
          }
          // Checked again after the derivation: a revocation applied meanwhile wins.
          ApiKeyInfo now = ctx.meta().read((MetaReader r) -> r.apiKey(keyId)).orElse(null);
          if (now == null || now.revoked()) {
            throw new AuthenticationException("revoked API key key=" + keyId);
          }
          Principal p = principal(now);
          cache.put(keyId, secretHash, p, ctx.clock().millis());
          return p;
        },
        verifyExecutor);
  }

  /** The SCRAM credential of an active key; empty for an unknown or revoked one. */
  public Optional<ScramCredential> scramCredential(String keyId, String mechanism) {
    boolean sha256 = ScramCredential.SCRAM_SHA_256.equals(mechanism);
    if (!sha256 && !ScramCredential.SCRAM_SHA_512.equals(mechanism)) {
      throw new LoamException(
          Kind.INVALID,
          "unknown SCRAM mechanism (SCRAM-SHA-256, SCRAM-SHA-512) mechanism=" + mechanism);
    }
    if (keyId == null) {
      return Optional.empty();
    }
    return ctx.meta()
        .read((MetaReader r) -> r.apiKey(keyId))
        .filter(k -> !k.revoked())
        .map(
            k -> {
              ScramSecrets s = k.secrets();
              return new ScramCredential(
                  mechanism,
                  s.salt(),
                  s.iterations(),
                  sha256 ? s.storedKey256() : s.storedKey512(),
                  sha256 ? s.serverKey256() : s.serverKey512());
            });
  }

  /** The principal of an active key; empty for an unknown or revoked one. A local read. */
  public Optional<Principal> activePrincipal(String keyId) {
    if (keyId == null) {
      return Optional.empty();
    }
    return ctx.meta()
        .read((MetaReader r) -> r.apiKey(keyId))
        .filter(k -> !k.revoked())
        .map(ApiKeys::principal);
  }

  /** Cached verifications now (for tests). */
  int cachedEntries() {
    return cache.size();
  }

  // ---- helpers

  static ScramSecrets derive(String secret, byte[] salt) {
    byte[][] k256 = ScramDerivation.SHA_256.storedAndServerKey(secret, salt, ITERATIONS);
    byte[][] k512 = ScramDerivation.SHA_512.storedAndServerKey(secret, salt, ITERATIONS);
    return new ScramSecrets(salt, ITERATIONS, k256[0], k256[1], k512[0], k512[1]);
  }

  private String newId() {
    char[] id = new char[ApiKeyInfo.ID_LENGTH];
    for (int i = 0; i < id.length; i++) {
      id[i] = BASE32[secretRandom.nextInt(BASE32.length)];
    }
    return new String(id);
  }

  private String newSecret() {
    byte[] b = new byte[SECRET_BYTES];
    secretRandom.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  private static Set<ApiKeyRole> roles(ApiKeySpec spec) {
    EnumSet<ApiKeyRole> out = EnumSet.noneOf(ApiKeyRole.class);
    for (Role r : spec.roles()) {
      out.add(ApiKeyRole.valueOf(r.name()));
    }
    return out;
  }

  private static Set<Role> roles(Set<ApiKeyRole> roles) {
    EnumSet<Role> out = EnumSet.noneOf(Role.class);
    for (ApiKeyRole r : roles) {
      out.add(Role.valueOf(r.name()));
    }
    return out;
  }

  static ApiKey describe(ApiKeyInfo k) {
    return new ApiKey(
        k.id(),
        k.scope(),
        roles(k.roles()),
        k.createdAtMillis(),
        k.revoked() ? k.revokedAtMillis() : -1);
  }

  private static Principal principal(ApiKeyInfo k) {
    return new Principal(k.id(), k.scope(), roles(k.roles()));
  }

  private static <T> CompletableFuture<T> refused(String message) {
    return CompletableFuture.failedFuture(new AuthenticationException(message));
  }

  private static String shortened(String id) {
    int max = ApiKeyInfo.ID_LENGTH + 16;
    return id.length() <= max ? id : id.substring(0, max) + "...";
  }

  private static String sha256(String s) {
    try {
      byte[] h = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
      return Base64.getEncoder().encodeToString(h);
    } catch (NoSuchAlgorithmException e) {
      throw new LoamException(Kind.INTERNAL, "the JDK lacks SHA-256", e);
    }
  }
}
