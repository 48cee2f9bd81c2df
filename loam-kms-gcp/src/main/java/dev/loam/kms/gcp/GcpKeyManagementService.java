package dev.loam.kms.gcp;

import com.google.api.gax.rpc.ApiException;
import com.google.api.gax.rpc.StatusCode;
import com.google.cloud.kms.v1.CreateCryptoKeyRequest;
import com.google.cloud.kms.v1.CreateCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.CryptoKey;
import com.google.cloud.kms.v1.CryptoKeyVersion;
import com.google.cloud.kms.v1.CryptoKeyVersion.CryptoKeyVersionState;
import com.google.cloud.kms.v1.CryptoKeyVersionTemplate;
import com.google.cloud.kms.v1.DecryptRequest;
import com.google.cloud.kms.v1.DestroyCryptoKeyVersionRequest;
import com.google.cloud.kms.v1.EncryptRequest;
import com.google.cloud.kms.v1.GetCryptoKeyRequest;
import com.google.cloud.kms.v1.KeyManagementServiceClient;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsRequest;
import com.google.cloud.kms.v1.ListCryptoKeyVersionsResponse;
import com.google.cloud.kms.v1.UpdateCryptoKeyPrimaryVersionRequest;
import com.google.protobuf.ByteString;
import com.google.protobuf.Int64Value;
import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.kms.KeyManagementService;
import dev.loam.kms.KeyVersion;
import dev.loam.kms.KmsArguments;
import dev.loam.kms.KmsUnavailableException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A {@link KeyManagementService} on Google Cloud KMS: each namespace's master key is a symmetric
 * crypto key ({@code ENCRYPT_DECRYPT}, {@code GOOGLE_SYMMETRIC_ENCRYPTION}) in one key ring, named
 * {@code <prefix>n<first 40 hex digits of SHA-256 of the namespace id>} (Cloud KMS key ids allow
 * neither dots nor 128 characters; the hash keeps namespaces that differ only in case apart). Wrap
 * and unwrap are {@code Encrypt} and {@code Decrypt} with the additional authenticated data {@code
 * loam:namespace=<namespace>}, and with the CRC32C checksums Cloud KMS verifies end to end. The
 * version is the number Cloud KMS gives the crypto key version; rotation creates a version and
 * makes it primary. Destroy schedules the destruction of every version (Cloud KMS destroys the
 * material after the key's scheduled-destruction period); a key whose primary version is destroyed
 * or scheduled for destruction reads as destroyed, one whose primary is only disabled as
 * unavailable (it can be enabled again). Documented in docs/reference/kms.md, "Google Cloud KMS".
 */
public final class GcpKeyManagementService implements KeyManagementService {
  static final String AAD_PREFIX = "loam:namespace=";

  private static final Pattern KEY_RING =
      Pattern.compile("projects/[^/]+/locations/[^/]+/keyRings/[^/]+");
  private static final Pattern PREFIX = Pattern.compile("[a-zA-Z0-9_-]{0,22}");

  private final KeyManagementServiceClient client;
  private final String keyRing;
  private final String prefix;
  private volatile boolean closed;

  /**
   * @param client the Cloud KMS client; closed by {@link #close()}
   * @param keyRing the key ring that holds the namespaces' keys, {@code
   *     projects/<project>/locations/<location>/keyRings/<ring>}
   * @param prefix 0..22 characters of {@code [a-zA-Z0-9_-]} before each key id, e.g. {@code
   *     loam-prod-}
   * @throws IllegalArgumentException if the key ring or the prefix is malformed
   * @throws NullPointerException if an argument is null
   */
  public GcpKeyManagementService(KeyManagementServiceClient client, String keyRing, String prefix) {
    this.client = Objects.requireNonNull(client, "client");
    this.keyRing = Objects.requireNonNull(keyRing, "keyRing");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    if (!KEY_RING.matcher(keyRing).matches()) {
      throw new IllegalArgumentException(
          "key ring must be projects/<project>/locations/<location>/keyRings/<ring> keyRing="
              + keyRing);
    }
    if (!PREFIX.matcher(prefix).matches()) {
      throw new IllegalArgumentException(
          "key id prefix must be 0..22 of [a-zA-Z0-9_-] prefix=" + prefix);
    }
  }

  /** The crypto key id of a namespace: the prefix, {@code n}, 40 hex digits of its SHA-256. */
  public static String cryptoKeyId(String prefix, String namespace) {
    try {
      byte[] h =
          MessageDigest.getInstance("SHA-256").digest(namespace.getBytes(StandardCharsets.UTF_8));
      return prefix + "n" + HexFormat.of().formatHex(h, 0, 20);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 missing from the JDK", e);
    }
  }

  String keyName(String namespace) {
    return keyRing + "/cryptoKeys/" + cryptoKeyId(prefix, namespace);
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
            out.completeExceptionally(CloudKmsCalls.map(e, namespace, keyName(namespace)));
          }
        });
    return out;
  }

  private KeyDestroyedException destroyed(String namespace) {
    return new KeyDestroyedException(namespace, keyName(namespace));
  }

  /** A primary version an operator disabled: unusable now, but it can be enabled again. */
  private KmsUnavailableException disabled(String namespace) {
    return new KmsUnavailableException(
        "kms namespace key disabled (enable its primary version again, or destroy it) namespace="
            + namespace
            + " key="
            + keyName(namespace));
  }

  /** The key, failing with destroyed or disabled unless its primary version is enabled. */
  private CompletableFuture<CryptoKey> enabledKey(String namespace) {
    return CloudKmsCalls.of(
            client
                .getCryptoKeyCallable()
                .futureCall(GetCryptoKeyRequest.newBuilder().setName(keyName(namespace)).build()))
        .thenApply(
            k -> {
              CryptoKeyVersionState s =
                  k.hasPrimary() ? k.getPrimary().getState() : CryptoKeyVersionState.DESTROYED;
              if (s == CryptoKeyVersionState.DISABLED) {
                throw disabled(namespace);
              }
              if (s != CryptoKeyVersionState.ENABLED) {
                throw destroyed(namespace);
              }
              return k;
            });
  }

  private static byte[] aad(String namespace) {
    return (AAD_PREFIX + namespace).getBytes(StandardCharsets.UTF_8);
  }

  /** A response whose checksums do not match: damaged in transit, so worth retrying. */
  private KmsUnavailableException damaged(String what, String namespace) {
    return new KmsUnavailableException(
        "kms response failed its integrity check ("
            + what
            + ") namespace="
            + namespace
            + " key="
            + keyName(namespace));
  }

  @Override
  public CompletableFuture<KeyVersion> create(String namespace) {
    return call(
        namespace,
        ns ->
            CloudKmsCalls.of(
                    client
                        .createCryptoKeyCallable()
                        .futureCall(
                            CreateCryptoKeyRequest.newBuilder()
                                .setParent(keyRing)
                                .setCryptoKeyId(cryptoKeyId(prefix, ns))
                                .setCryptoKey(
                                    CryptoKey.newBuilder()
                                        .setPurpose(CryptoKey.CryptoKeyPurpose.ENCRYPT_DECRYPT)
                                        .setVersionTemplate(
                                            CryptoKeyVersionTemplate.newBuilder()
                                                .setAlgorithm(
                                                    CryptoKeyVersion.CryptoKeyVersionAlgorithm
                                                        .GOOGLE_SYMMETRIC_ENCRYPTION))
                                        .putLabels("loam", "namespace-key"))
                                .build()))
                .thenApply(
                    k -> new KeyVersion(ns, CloudKmsCalls.versionOf(k.getPrimary().getName()))));
  }

  @Override
  public CompletableFuture<KeyVersion> current(String namespace) {
    return call(
        namespace,
        ns ->
            enabledKey(ns)
                .thenApply(
                    k -> new KeyVersion(ns, CloudKmsCalls.versionOf(k.getPrimary().getName()))));
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
          byte[] aad = aad(ns);
          return enabledKey(ns)
              .thenCompose(
                  k ->
                      CloudKmsCalls.of(
                          client
                              .encryptCallable()
                              .futureCall(
                                  EncryptRequest.newBuilder()
                                      .setName(k.getName())
                                      .setPlaintext(ByteString.copyFrom(plaintext))
                                      .setPlaintextCrc32C(
                                          Int64Value.of(CloudKmsCalls.crc32c(plaintext)))
                                      .setAdditionalAuthenticatedData(ByteString.copyFrom(aad))
                                      .setAdditionalAuthenticatedDataCrc32C(
                                          Int64Value.of(CloudKmsCalls.crc32c(aad)))
                                      .build())))
              .thenApply(
                  r -> {
                    byte[] ct = r.getCiphertext().toByteArray();
                    if (!r.getVerifiedPlaintextCrc32C()
                        || !r.getVerifiedAdditionalAuthenticatedDataCrc32C()) {
                      throw damaged("request checksums not verified", ns);
                    }
                    if (!r.hasCiphertextCrc32C()
                        || r.getCiphertextCrc32C().getValue() != CloudKmsCalls.crc32c(ct)) {
                      throw damaged("ciphertext checksum", ns);
                    }
                    return ct;
                  });
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
          byte[] aad = aad(ns);
          // The key first: an unknown or destroyed namespace is reported as such, not as a
          // ciphertext that happens not to decrypt.
          return enabledKey(ns)
              .thenCompose(
                  k ->
                      CloudKmsCalls.of(
                              client
                                  .decryptCallable()
                                  .futureCall(
                                      DecryptRequest.newBuilder()
                                          .setName(k.getName())
                                          .setCiphertext(ByteString.copyFrom(wrapped))
                                          .setCiphertextCrc32C(
                                              Int64Value.of(CloudKmsCalls.crc32c(wrapped)))
                                          .setAdditionalAuthenticatedData(ByteString.copyFrom(aad))
                                          .setAdditionalAuthenticatedDataCrc32C(
                                              Int64Value.of(CloudKmsCalls.crc32c(aad)))
                                          .build()))
                          .handle(
                              (r, e) -> {
                                if (e == null) {
                                  return r;
                                }
                                Throwable c = CloudKmsCalls.unwrapped(e);
                                if (c instanceof ApiException a
                                    && (a.getStatusCode().getCode()
                                            == StatusCode.Code.INVALID_ARGUMENT
                                        || a.getStatusCode().getCode()
                                            == StatusCode.Code.NOT_FOUND)) {
                                  // The key exists: a ciphertext it cannot decrypt (damaged, or
                                  // another key's, or naming no version of it) is corruption.
                                  throw new CorruptionException(
                                      "kms wrapped key does not unwrap (code="
                                          + a.getStatusCode().getCode()
                                          + ") namespace="
                                          + ns
                                          + " key="
                                          + keyName(ns),
                                      c);
                                }
                                throw new CompletionException(c);
                              }))
              .thenApply(
                  r -> {
                    byte[] plain = r.getPlaintext().toByteArray();
                    if (!r.hasPlaintextCrc32C()
                        || r.getPlaintextCrc32C().getValue() != CloudKmsCalls.crc32c(plain)) {
                      throw damaged("plaintext checksum", ns);
                    }
                    return plain;
                  });
        });
  }

  @Override
  public CompletableFuture<KeyVersion> rotate(String namespace) {
    return call(
        namespace,
        ns ->
            enabledKey(ns)
                .thenCompose(
                    k ->
                        CloudKmsCalls.of(
                                client
                                    .createCryptoKeyVersionCallable()
                                    .futureCall(
                                        CreateCryptoKeyVersionRequest.newBuilder()
                                            .setParent(k.getName())
                                            .setCryptoKeyVersion(
                                                CryptoKeyVersion.getDefaultInstance())
                                            .build()))
                            .thenCompose(
                                v ->
                                    CloudKmsCalls.of(
                                        client
                                            .updateCryptoKeyPrimaryVersionCallable()
                                            .futureCall(
                                                UpdateCryptoKeyPrimaryVersionRequest.newBuilder()
                                                    .setName(k.getName())
                                                    .setCryptoKeyVersionId(
                                                        Integer.toString(
                                                            CloudKmsCalls.versionOf(v.getName())))
                                                    .build()))))
                .thenApply(
                    k -> new KeyVersion(ns, CloudKmsCalls.versionOf(k.getPrimary().getName()))));
  }

  @Override
  public CompletableFuture<Void> destroy(String namespace) {
    return call(
        namespace,
        ns ->
            CloudKmsCalls.of(
                    client
                        .getCryptoKeyCallable()
                        .futureCall(GetCryptoKeyRequest.newBuilder().setName(keyName(ns)).build()))
                .thenCompose(k -> destroyVersions(k.getName(), "")));
  }

  /** Schedules the destruction of every enabled or disabled version, a page at a time. */
  private CompletableFuture<Void> destroyVersions(String key, String pageToken) {
    return CloudKmsCalls.of(
            client
                .listCryptoKeyVersionsCallable()
                .futureCall(
                    ListCryptoKeyVersionsRequest.newBuilder()
                        .setParent(key)
                        .setPageSize(100)
                        .setPageToken(pageToken)
                        .build()))
        .thenCompose(
            (ListCryptoKeyVersionsResponse page) -> {
              CompletableFuture<?>[] destroys =
                  page.getCryptoKeyVersionsList().stream()
                      .filter(
                          v ->
                              v.getState() == CryptoKeyVersionState.ENABLED
                                  || v.getState() == CryptoKeyVersionState.DISABLED)
                      .map(
                          v ->
                              CloudKmsCalls.of(
                                  client
                                      .destroyCryptoKeyVersionCallable()
                                      .futureCall(
                                          DestroyCryptoKeyVersionRequest.newBuilder()
                                              .setName(v.getName())
                                              .build())))
                      .toArray(CompletableFuture[]::new);
              return CompletableFuture.allOf(destroys)
                  .thenCompose(
                      x ->
                          page.getNextPageToken().isEmpty()
                              ? CompletableFuture.<Void>completedFuture(null)
                              : destroyVersions(key, page.getNextPageToken()));
            });
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
    return "GcpKeyManagementService[keyRing=" + keyRing + " prefix=" + prefix + "]";
  }
}
