package dev.loam.kms.azure;

import com.azure.core.exception.HttpResponseException;
import com.azure.core.exception.ResourceModifiedException;
import com.azure.core.exception.ResourceNotFoundException;
import com.azure.core.util.polling.AsyncPollResponse;
import com.azure.security.keyvault.keys.KeyAsyncClient;
import com.azure.security.keyvault.keys.cryptography.CryptographyAsyncClient;
import com.azure.security.keyvault.keys.cryptography.models.KeyWrapAlgorithm;
import com.azure.security.keyvault.keys.models.CreateRsaKeyOptions;
import com.azure.security.keyvault.keys.models.DeletedKey;
import com.azure.security.keyvault.keys.models.KeyOperation;
import com.azure.security.keyvault.keys.models.KeyProperties;
import com.azure.security.keyvault.keys.models.KeyVaultKey;
import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KeyVersion;
import dev.loam.kms.KmsArguments;
import dev.loam.kms.KmsKeyExistsException;
import dev.loam.kms.KmsKeyNotFoundException;
import dev.loam.kms.KmsUnavailableException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * A {@link KeyManagementService} on Azure Key Vault: each namespace's master key is an RSA key
 * (3072 bits, operations {@code wrapKey} and {@code unwrapKey}) of one vault, named {@code
 * <prefix>n<first 40 hex digits of SHA-256 of the namespace id>} (Key Vault names allow neither
 * dots nor underscores and ignore case; the hash keeps namespaces that differ only in case apart).
 * Wrap is the vault's {@code wrapKey} (RSA-OAEP-256) under the key's newest version, unwrap its
 * {@code unwrapKey} with the version the wrapped bytes name. A key's versions are numbered 1, 2, …
 * in the order the vault created them; rotation is Key Vault's {@code rotate}. Destroy deletes the
 * key (soft delete: the vault keeps it recoverable for its retention period, then purges it); a
 * deleted key reads as destroyed, one that is only disabled as unavailable. Documented in
 * docs/reference/kms.md, "Azure Key Vault".
 */
public final class AzureKeyManagementService implements KeyManagementService {
  static final String TAG = "loam-namespace-key";

  /** Cryptography clients held, one per key version used. */
  static final int MAX_CRYPTO_CLIENTS = 1024;

  private static final Pattern PREFIX = Pattern.compile("[0-9a-zA-Z-]{0,80}");

  private final KeyAsyncClient client;
  private final String prefix;
  private final Duration pollInterval;
  private final java.util.concurrent.ConcurrentHashMap<String, CryptographyAsyncClient>
      cryptoClients = new java.util.concurrent.ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param client the Key Vault keys client of the vault that holds the namespaces' keys
   * @param prefix 0..80 characters of {@code [0-9a-zA-Z-]} before each key name
   * @param pollInterval how often a destroy polls the vault until the deletion is done
   * @throws IllegalArgumentException if the prefix is malformed
   * @throws NullPointerException if an argument is null
   */
  public AzureKeyManagementService(KeyAsyncClient client, String prefix, Duration pollInterval) {
    this.client = Objects.requireNonNull(client, "client");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "key name prefix must be 0..80 of [0-9a-zA-Z-] prefix=" + prefix);
    }
  }

  /** The key name of a namespace: the prefix, {@code n}, 40 hex digits of its SHA-256. */
  public static String keyName(String prefix, String namespace) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256").digest(namespace.getBytes(StandardCharsets.UTF_8));
      return prefix + "n" + HexFormat.of().formatHex(h, 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from the JDK", e);
    }
  }

  String keyName(String namespace) {
    return keyName(prefix, namespace);
  }

  private <T> CompletableFuture<T> call(String namespace, Function<String, Mono<T>> body) {
    Objects.requireNonNull(namespace, "namespace");
    LoamException bad = KmsArguments.checkNamespace(namespace);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    if (closed) {
      return CompletableFuture.failedFuture(
          new KmsUnavailableException("kms closed namespace=" + namespace));
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    Mono<T> m;
    try {
      m = body.apply(namespace);
    } catch (RuntimeException e) {
      m = Mono.error(e);
    }
    m.subscribe(
        out::complete,
        e -> out.completeExceptionally(map(e, namespace)),
        () -> {
          if (!out.isDone()) {
            out.completeExceptionally(
                new LoamException(
                    LoamException.Kind.INTERNAL,
                    "kms call completed without a result namespace=" + namespace));
          }
        });
    return out;
  }

  /** Maps client failures to the SPI's typed errors. */
  Throwable map(Throwable e, String namespace) {
    Throwable c = e;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof LoamException) {
      return c;
    }
    String who = " namespace=" + namespace + " key=" + keyName(namespace);
    if (c instanceof ResourceNotFoundException) {
      return new KmsKeyNotFoundException("kms namespace key not found" + who, c);
    }
    if (c instanceof ResourceModifiedException) {
      return new KmsKeyExistsException("kms namespace key already exists" + who, c);
    }
    if (c instanceof HttpResponseException h) {
      int status = h.getResponse() == null ? 0 : h.getResponse().getStatusCode();
      if (status >= 500 || status == 429 || status == 408) {
        return new KmsUnavailableException("kms unavailable status=" + status + who, c);
      }
      return new LoamException(
          LoamException.Kind.INTERNAL, "kms request refused status=" + status + who, c);
    }
    // Connection failures and timeouts surface as I/O or timeout exceptions, often wrapped.
    for (Throwable t = c; t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException || t instanceof java.util.concurrent.TimeoutException) {
        return new KmsUnavailableException("kms unreachable" + who + " cause=" + t, c);
      }
    }
    return new LoamException(LoamException.Kind.INTERNAL, "kms call failed" + who, c);
  }

  private KeyDestroyedException destroyed(String namespace) {
    return new KeyDestroyedException(namespace, keyName(namespace));
  }

  /** The key's newest version, failing with destroyed (deleted) or unavailable (disabled). */
  private Mono<KeyVaultKey> enabledKey(String namespace) {
    String name = keyName(namespace);
    return client
        .getKey(name)
        .onErrorResume(
            ResourceNotFoundException.class,
            nf ->
                client
                    .getDeletedKey(name)
                    .onErrorMap(ResourceNotFoundException.class, x -> nf)
                    .flatMap(d -> Mono.error(destroyed(namespace))))
        .map(
            k -> {
              if (!Boolean.TRUE.equals(k.getProperties().isEnabled())) {
                throw new KmsUnavailableException(
                    "kms namespace key disabled (enable it again, or destroy it) namespace="
                        + namespace
                        + " key="
                        + name);
              }
              return k;
            });
  }

  /** The key's versions, oldest first. */
  private Mono<List<KeyProperties>> versions(String name) {
    return client
        .listPropertiesOfKeyVersions(name)
        .collectList()
        .map(
            l ->
                l.stream()
                    .sorted(
                        Comparator.comparing(
                                (KeyProperties p) ->
                                    p.getCreatedOn() == null
                                        ? OffsetDateTime.MIN
                                        : p.getCreatedOn())
                            .thenComparing(KeyProperties::getVersion))
                    .toList());
  }

  /** The number of {@code version} among the key's versions, 1 for the oldest. */
  private Mono<KeyVersion> numbered(String namespace, String version) {
    return versions(keyName(namespace))
        .map(
            l -> {
              for (int i = 0; i < l.size(); i++) {
                if (l.get(i).getVersion().equals(version)) {
                  return new KeyVersion(namespace, i + 1);
                }
              }
              throw new LoamException(
                  LoamException.Kind.INTERNAL,
                  "kms key version not listed version=" + version + " namespace=" + namespace);
            });
  }

  @Override
  public CompletableFuture<KeyVersion> create(String namespace) {
    return call(
        namespace,
        ns -> {
          String name = keyName(ns);
          // Creating a name that exists would add a version: look first. A deleted name is
          // refused by the vault itself (409), which maps to exists too.
          return client
              .getKey(name)
              .flatMap(
                  k ->
                      Mono.<KeyVersion>error(
                          new KmsKeyExistsException(
                              "kms namespace key already exists namespace=" + ns + " key=" + name)))
              .onErrorResume(
                  ResourceNotFoundException.class,
                  nf ->
                      client
                          .createRsaKey(
                              new CreateRsaKeyOptions(name)
                                  .setKeySize(3072)
                                  .setKeyOperations(KeyOperation.WRAP_KEY, KeyOperation.UNWRAP_KEY)
                                  .setTags(Map.of(TAG, "true")))
                          .map(k -> new KeyVersion(ns, 1)));
        });
  }

  @Override
  public CompletableFuture<KeyVersion> current(String namespace) {
    return call(
        namespace, ns -> enabledKey(ns).flatMap(k -> numbered(ns, k.getProperties().getVersion())));
  }

  @Override
  public CompletableFuture<byte[]> wrap(String namespace, byte[] plaintext) {
    Objects.requireNonNull(plaintext, "plaintext");
    return call(
        namespace,
        ns -> {
          LoamException bad = KmsArguments.checkPlaintext(ns, plaintext);
          if (bad != null) {
            return Mono.error(bad);
          }
          return enabledKey(ns)
              .flatMap(
                  k -> {
                    String version = k.getProperties().getVersion();
                    return crypto(keyName(ns), version)
                        .wrapKey(KeyWrapAlgorithm.RSA_OAEP_256, plaintext)
                        .map(r -> AzureWrappedKey.encode(version, r.getEncryptedKey()));
                  });
        });
  }

  @Override
  public CompletableFuture<byte[]> unwrap(String namespace, byte[] wrapped) {
    Objects.requireNonNull(wrapped, "wrapped");
    return call(
        namespace,
        ns -> {
          String name = keyName(ns);
          // The key first: an unknown or deleted namespace is reported as such, not as bytes
          // that happen not to unwrap.
          return enabledKey(ns)
              .flatMap(
                  k -> {
                    AzureWrappedKey w = AzureWrappedKey.decode(wrapped, ns);
                    return crypto(name, w.version())
                        .unwrapKey(KeyWrapAlgorithm.RSA_OAEP_256, w.encryptedKey())
                        .onErrorMap(
                            x ->
                                x instanceof ResourceNotFoundException
                                    || (x instanceof HttpResponseException h
                                        && h.getResponse() != null
                                        && h.getResponse().getStatusCode() == 400),
                            x ->
                                new CorruptionException(
                                    "kms wrapped key does not unwrap (the vault refused it)"
                                        + " namespace="
                                        + ns
                                        + " key="
                                        + name
                                        + " version="
                                        + w.version(),
                                    x));
                  })
              .map(r -> r.getKey());
        });
  }

  /** The cryptography client of one key version, made once (it fetches the key on first use). */
  private CryptographyAsyncClient crypto(String name, String version) {
    if (cryptoClients.size() > MAX_CRYPTO_CLIENTS) {
      cryptoClients.clear(); // damaged wrapped keys name versions that never come back
    }
    return cryptoClients.computeIfAbsent(
        name + "/" + version, k -> client.getCryptographyAsyncClient(name, version));
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String namespace) {
    return call(
        namespace,
        ns ->
            enabledKey(ns)
                .flatMap(k -> client.rotateKey(keyName(ns)))
                .flatMap(k -> numbered(ns, k.getProperties().getVersion())));
  }

  @Override
  public CompletableFuture<Void> destroy(String namespace) {
    return this.<Boolean>call(
            namespace,
            ns -> {
              String name = keyName(ns);
              return client
                  .getKey(name)
                  .flatMap(
                      k ->
                          client
                              .beginDeleteKey(name)
                              .setPollInterval(pollInterval)
                              .takeUntil(r -> r.getStatus().isComplete())
                              .last()
                              .map(AsyncPollResponse::getValue))
                  .onErrorResume(
                      ResourceNotFoundException.class,
                      nf ->
                          client
                              .getDeletedKey(name)
                              .onErrorMap(ResourceNotFoundException.class, x -> nf))
                  .map((DeletedKey d) -> Boolean.TRUE);
            })
        .thenApply(x -> null);
  }

  @Override
  public void close() {
    // The vault client holds no resources of its own: its HTTP client belongs to the caller.
    closed = true;
  }

  @Override
  public String toString() {
    return "AzureKeyManagementService[vault=" + client.getVaultUrl() + " prefix=" + prefix + "]";
  }
}
