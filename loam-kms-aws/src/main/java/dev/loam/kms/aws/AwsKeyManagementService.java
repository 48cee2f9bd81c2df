package dev.loam.kms.aws;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KeyVersion;
import dev.loam.kms.KmsArguments;
import dev.loam.kms.KmsKeyExistsException;
import dev.loam.kms.KmsKeyNotFoundException;
import dev.loam.kms.KmsUnavailableException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.kms.KmsAsyncClient;
import software.amazon.awssdk.services.kms.model.AlreadyExistsException;
import software.amazon.awssdk.services.kms.model.DisabledException;
import software.amazon.awssdk.services.kms.model.IncorrectKeyException;
import software.amazon.awssdk.services.kms.model.InvalidCiphertextException;
import software.amazon.awssdk.services.kms.model.KeyMetadata;
import software.amazon.awssdk.services.kms.model.KeySpec;
import software.amazon.awssdk.services.kms.model.KeyState;
import software.amazon.awssdk.services.kms.model.KeyUsageType;
import software.amazon.awssdk.services.kms.model.KmsException;
import software.amazon.awssdk.services.kms.model.KmsInvalidStateException;
import software.amazon.awssdk.services.kms.model.ListKeyRotationsResponse;
import software.amazon.awssdk.services.kms.model.NotFoundException;
import software.amazon.awssdk.services.kms.model.Tag;

/**
 * A {@link KeyManagementService} on AWS KMS: each namespace's master key is a symmetric
 * customer-managed KMS key named by the alias {@code alias/<prefix><namespace>}
 * (docs/reference/kms.md, "AWS KMS"). Wrap and unwrap are KMS {@code Encrypt} and {@code Decrypt}
 * with the encryption context {@code loam:namespace=<namespace>}, so a wrapped key decrypts only
 * for its namespace; the ciphertext blob is KMS's own and names the key version. Rotation is {@code
 * RotateKeyOnDemand}; the version is 1 plus the key's rotations. Destroy disables the key at once
 * (every later use fails) and schedules its deletion after the pending window; a key pending
 * deletion reads as destroyed, a key that is only disabled as unavailable (it can be enabled
 * again).
 */
public final class AwsKeyManagementService implements KeyManagementService {
  static final String CONTEXT_KEY = "loam:namespace";

  private final KmsAsyncClient client;
  private final String aliasPrefix;
  private final int pendingWindowDays;
  private volatile boolean closed;

  /**
   * @param client the SDK client; closed by {@link #close()}
   * @param aliasPrefix between {@code alias/} and the namespace id, e.g. {@code loam/prod/}
   * @param pendingWindowDays days (7..30) between destroy and KMS deleting the key material
   * @throws IllegalArgumentException if the prefix starts with {@code aws/} or the window is out of
   *     range
   * @throws NullPointerException if an argument is null
   */
  public AwsKeyManagementService(KmsAsyncClient client, String aliasPrefix, int pendingWindowDays) {
    this.client = Objects.requireNonNull(client, "client");
    this.aliasPrefix = Objects.requireNonNull(aliasPrefix, "aliasPrefix");
    if (aliasPrefix.startsWith("aws/") || !aliasPrefix.matches("[A-Za-z0-9/_-]*")) {
      throw new IllegalArgumentException(
          "alias prefix must be [A-Za-z0-9/_-]* and not start with aws/ prefix=" + aliasPrefix);
    }
    if (pendingWindowDays < 7 || pendingWindowDays > 30) {
      throw new IllegalArgumentException(
          "pending window out of range days=" + pendingWindowDays + " min=7 max=30");
    }
    this.pendingWindowDays = pendingWindowDays;
  }

  String alias(String namespace) {
    return "alias/" + aliasPrefix + namespace;
  }

  private <T> CompletableFuture<T> call(
      String namespace, Function<String, CompletableFuture<T>> body) {
    Objects.requireNonNull(namespace, "namespace");
    LoamException bad = KmsArguments.checkNamespace(namespace);
    if (bad != null) {
      return CompletableFuture.failedFuture(bad);
    }
    if (closed) {
      return CompletableFuture.failedFuture(
          new KmsUnavailableException("kms closed namespace=" + namespace));
    }
    CompletableFuture<T> f;
    try {
      f = body.apply(namespace);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<T> out = new CompletableFuture<>();
    f.whenComplete(
        (v, e) -> {
          if (e == null) {
            out.complete(v);
          } else {
            out.completeExceptionally(map(e, namespace));
          }
        });
    return out;
  }

  /** Maps SDK failures to the SPI's typed errors. */
  Throwable map(Throwable e, String namespace) {
    Throwable c = e;
    while ((c instanceof CompletionException || c instanceof ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    String who = " namespace=" + namespace + " alias=" + alias(namespace);
    if (c instanceof LoamException) {
      return c;
    }
    if (c instanceof NotFoundException) {
      return new KmsKeyNotFoundException("kms namespace key not found" + who, c);
    }
    if (c instanceof AlreadyExistsException) {
      return new KmsKeyExistsException("kms namespace key already exists" + who, c);
    }
    if (c instanceof KmsInvalidStateException) {
      return destroyed(namespace); // KMS refuses every use of a key pending deletion
    }
    if (c instanceof DisabledException) {
      return disabled(namespace, c);
    }
    if (c instanceof InvalidCiphertextException || c instanceof IncorrectKeyException) {
      return new CorruptionException(
          "kms wrapped key does not unwrap ("
              + ((KmsException) c).awsErrorDetails().errorCode()
              + ")"
              + who,
          c);
    }
    if (c instanceof KmsException k) {
      int status = k.statusCode();
      if (status >= 500 || status == 429 || k.isThrottlingException()) {
        return new KmsUnavailableException(
            "kms unavailable status=" + status + " code=" + code(k) + who, c);
      }
      return new LoamException(
          LoamException.Kind.INTERNAL,
          "kms request refused status=" + status + " code=" + code(k) + who,
          c);
    }
    if (c instanceof SdkClientException) {
      return new KmsUnavailableException("kms unreachable" + who + " cause=" + c, c);
    }
    return new LoamException(LoamException.Kind.INTERNAL, "kms call failed" + who, c);
  }

  private static String code(KmsException k) {
    return k.awsErrorDetails() == null ? "?" : k.awsErrorDetails().errorCode();
  }

  private KeyDestroyedException destroyed(String namespace) {
    return new KeyDestroyedException(namespace, alias(namespace));
  }

  /**
   * A key an operator disabled (or a destroy that stopped between disabling and scheduling the
   * deletion): unusable now, but it can be enabled again, so not reported as destroyed.
   */
  private KmsUnavailableException disabled(String namespace, Throwable cause) {
    return new KmsUnavailableException(
        "kms namespace key disabled (enable it again, or destroy it) namespace="
            + namespace
            + " alias="
            + alias(namespace),
        cause);
  }

  /** The key's metadata, failing with destroyed or disabled unless it is enabled. */
  private CompletableFuture<KeyMetadata> enabledKey(String namespace) {
    return client
        .describeKey(r -> r.keyId(alias(namespace)))
        .thenApply(
            d -> {
              KeyMetadata m = d.keyMetadata();
              if (m.keyState() == KeyState.DISABLED) {
                throw disabled(namespace, null);
              }
              if (m.keyState() != KeyState.ENABLED) {
                throw destroyed(namespace);
              }
              return m;
            });
  }

  private CompletableFuture<Integer> rotations(String keyId, String marker, int sofar) {
    return client
        .listKeyRotations(
            r -> {
              r.keyId(keyId);
              if (marker != null) {
                r.marker(marker);
              }
            })
        .thenCompose(
            (ListKeyRotationsResponse l) -> {
              int n = sofar + l.rotations().size();
              return Boolean.TRUE.equals(l.truncated())
                  ? rotations(keyId, l.nextMarker(), n)
                  : CompletableFuture.completedFuture(n);
            });
  }

  @Override
  public CompletableFuture<KeyVersion> create(String namespace) {
    return call(
        namespace,
        ns ->
            client
                .createKey(
                    r ->
                        r.keySpec(KeySpec.SYMMETRIC_DEFAULT)
                            .keyUsage(KeyUsageType.ENCRYPT_DECRYPT)
                            .description("Loam namespace master key " + ns)
                            .tags(Tag.builder().tagKey(CONTEXT_KEY).tagValue(ns).build()))
                .thenCompose(
                    k -> {
                      String keyId = k.keyMetadata().keyId();
                      return client
                          .createAlias(r -> r.aliasName(alias(ns)).targetKeyId(keyId))
                          .handle(
                              (ok, err) -> {
                                if (err == null) {
                                  return CompletableFuture.completedFuture(new KeyVersion(ns, 1));
                                }
                                // Lost a race or the name is taken: retire the unused key.
                                return client
                                    .scheduleKeyDeletion(r -> r.keyId(keyId).pendingWindowInDays(7))
                                    .handle(
                                        (x, y) -> {
                                          throw new CompletionException(err);
                                        })
                                    .thenApply(x -> (KeyVersion) x);
                              })
                          .thenCompose(f -> f);
                    }));
  }

  @Override
  public CompletableFuture<KeyVersion> current(String namespace) {
    return call(
        namespace,
        ns ->
            enabledKey(ns)
                .thenCompose(m -> rotations(m.keyId(), null, 0))
                .thenApply(n -> new KeyVersion(ns, n + 1)));
  }

  @Override
  public CompletableFuture<byte[]> wrap(String namespace, byte[] plaintext) {
    Objects.requireNonNull(plaintext, "plaintext");
    return call(
        namespace,
        ns -> {
          LoamException bad = KmsArguments.checkPlaintext(ns, plaintext);
          if (bad != null) {
            return CompletableFuture.failedFuture(bad);
          }
          return client
              .encrypt(
                  r ->
                      r.keyId(alias(ns))
                          .plaintext(SdkBytes.fromByteArray(plaintext))
                          .encryptionContext(Map.of(CONTEXT_KEY, ns)))
              .thenApply(e -> e.ciphertextBlob().asByteArray());
        });
  }

  @Override
  public CompletableFuture<byte[]> unwrap(String namespace, byte[] wrapped) {
    Objects.requireNonNull(wrapped, "wrapped");
    return call(
        namespace,
        ns -> {
          if (wrapped.length == 0) {
            return CompletableFuture.failedFuture(
                new CorruptionException("kms wrapped key does not unwrap (empty) namespace=" + ns));
          }
          // Describe first: an unknown or destroyed namespace is reported as such, not as a
          // ciphertext that happens not to match.
          return enabledKey(ns)
              .thenCompose(
                  m ->
                      client.decrypt(
                          r ->
                              r.keyId(m.arn())
                                  .ciphertextBlob(SdkBytes.fromByteArray(wrapped))
                                  .encryptionContext(Map.of(CONTEXT_KEY, ns))))
              .thenApply(d -> d.plaintext().asByteArray());
        });
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String namespace) {
    return call(
        namespace,
        ns ->
            enabledKey(ns)
                .thenCompose(
                    m ->
                        client
                            .rotateKeyOnDemand(r -> r.keyId(m.keyId()))
                            .thenCompose(x -> rotations(m.keyId(), null, 0)))
                .thenApply(n -> new KeyVersion(ns, n + 1)));
  }

  @Override
  public CompletableFuture<Void> destroy(String namespace) {
    return call(
        namespace,
        ns ->
            client
                .describeKey(r -> r.keyId(alias(ns)))
                .thenCompose(
                    d -> {
                      KeyMetadata m = d.keyMetadata();
                      if (m.keyState() == KeyState.PENDING_DELETION) {
                        return CompletableFuture.completedFuture(null);
                      }
                      CompletableFuture<?> disable =
                          m.keyState() == KeyState.DISABLED
                              ? CompletableFuture.completedFuture(null)
                              : client.disableKey(r -> r.keyId(m.keyId()));
                      return disable
                          .thenCompose(
                              x ->
                                  client.scheduleKeyDeletion(
                                      r ->
                                          r.keyId(m.keyId())
                                              .pendingWindowInDays(pendingWindowDays)))
                          .thenApply(x -> (Void) null);
                    }));
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      client.close();
    }
  }

  @Override
  public String toString() {
    return "AwsKeyManagementService[alias=alias/" + aliasPrefix + "<namespace>]";
  }
}
