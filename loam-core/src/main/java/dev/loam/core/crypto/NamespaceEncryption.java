package dev.loam.core.crypto;

import dev.loam.api.NamespaceKeyInfo;
import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.kms.KeyManagementService;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.AddNamespaceKey;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.DestroyNamespaceKeys;
import dev.loam.meta.command.NamespaceKeys;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.wal.object.KeyEncryptionKey;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * A node's side of envelope encryption (docs/security.md, "Data at rest"): gives a namespace a
 * key-encryption key (its first, or a rotation) and shreds it, through the metastore, which every
 * node reads to learn whether a namespace seals its appends and under which key; and hands the
 * write path the key that seals a namespace's new chunks, the read paths the keys that open them.
 *
 * <p>Without a {@link KeyManagementService} ({@code ring} null) the node writes and reads plain
 * namespaces as before, refuses to give a namespace a key, and fails appends and sealed reads of an
 * encrypted namespace with UNAVAILABLE naming it: the other namespaces go on. Thread-safe.
 */
public final class NamespaceEncryption {
  private final Metastore meta;
  private final String nodeId;
  private final Supplier<Origin> origin;
  private final BiFunction<Outcome.Rejected, String, LoamException> rejections;
  private final NamespaceKeyRing ring;
  private final KeyManagementService kms;

  /**
   * @param origin stamps this node's proposals
   * @param rejections turns a refusal into the API's typed error, given the subject it names
   * @param ring the node's key ring, or null when the node has no KMS
   * @param kms the KMS the ring uses (destroys master keys), or null with {@code ring}
   */
  public NamespaceEncryption(
      Metastore meta,
      String nodeId,
      Supplier<Origin> origin,
      BiFunction<Outcome.Rejected, String, LoamException> rejections,
      NamespaceKeyRing ring,
      KeyManagementService kms) {
    this.meta = meta;
    this.nodeId = nodeId;
    this.origin = origin;
    this.rejections = rejections;
    this.ring = ring;
    this.kms = kms;
  }

  /** Whether this node has a key-management service. */
  public boolean hasKms() {
    return ring != null;
  }

  /** Whether any namespace has a key record, so that some WAL chunk may be sealed. */
  public boolean anyNamespaceKeys() {
    return meta.read(r -> r.anyNamespaceKeys());
  }

  /** The namespace's key record, if it was ever given a key. */
  public Optional<NamespaceKeys> keys(String namespace) {
    return meta.read(r -> r.namespaceKeys(namespace));
  }

  /**
   * Gives the namespace a new key-encryption key: its first (new appends are sealed from the next
   * flush on; earlier data stays as written) or a rotation (older keys keep opening what they
   * sealed). Writes the wrapped key file, then records it. INVALID when the node has no KMS,
   * NOT_FOUND for an unknown namespace, CONFLICT once its keys were destroyed, UNAVAILABLE naming
   * the namespace when the KMS does not answer in time.
   */
  public CompletableFuture<NamespaceKeyInfo> addKey(String namespace) {
    if (ring == null) {
      return CompletableFuture.failedFuture(noKms(Kind.INVALID, namespace));
    }
    boolean exists = meta.read(r -> r.namespaceExists(namespace));
    if (!exists) {
      return CompletableFuture.failedFuture(
          new LoamException(Kind.NOT_FOUND, "namespace not found namespace=" + namespace));
    }
    Optional<NamespaceKeys> before = keys(namespace);
    if (before.isPresent() && before.get().destroyed()) {
      return CompletableFuture.failedFuture(destroyed(before.get()));
    }
    return ring.addKey(namespace)
        .thenCompose(
            kek -> {
              String ulid = kek.id().substring(kek.id().lastIndexOf('/') + 1);
              return propose(new AddNamespaceKey(origin.get(), namespace, ulid), namespace);
            });
  }

  /**
   * Shreds the namespace (crypto-shredding): records its keys as destroyed, so every node refuses
   * its appends and stops sealing under them, then destroys its master key in the KMS and drops its
   * keys from this node's memory; other nodes drop theirs when they apply the record ({@link
   * #onApplied}). Idempotent. INVALID when the node has no KMS or the namespace has no key,
   * NOT_FOUND for an unknown namespace, UNAVAILABLE when the KMS does not answer (the record
   * stands; calling again finishes the destroy).
   */
  public CompletableFuture<NamespaceKeyInfo> destroy(String namespace) {
    if (ring == null) {
      return CompletableFuture.failedFuture(noKms(Kind.INVALID, namespace));
    }
    return propose(new DestroyNamespaceKeys(origin.get(), namespace), namespace)
        .thenCompose(
            info ->
                kms.destroy(namespace)
                    .handle(
                        (v, e) -> {
                          ring.forget(namespace);
                          Throwable c = e == null ? null : cause(e);
                          if (c == null
                              || c instanceof KeyDestroyedException
                              || c instanceof dev.loam.kms.KmsKeyNotFoundException) {
                            return info;
                          }
                          throw new CompletionException(
                              new LoamException(
                                  Kind.UNAVAILABLE,
                                  "namespace keys recorded destroyed, but the KMS did not destroy"
                                      + " the master key; call again namespace="
                                      + namespace,
                                  c));
                        }));
  }

  /** The namespace's keys as the API reports them, if it has any. */
  public Optional<NamespaceKeyInfo> describe(String namespace) {
    return keys(namespace).map(NamespaceEncryption::info);
  }

  /**
   * The key that seals the namespace's new chunks, or null (completed at once) when the namespace
   * is written plain. Fails with {@link KeyDestroyedException} for a shredded namespace and with
   * UNAVAILABLE naming the namespace when the KMS does not answer within its timeout or the node
   * has none: only that namespace's appends fail.
   */
  public CompletableFuture<KeyEncryptionKey> sealingKey(String namespace) {
    Optional<NamespaceKeys> k = keys(namespace);
    if (k.isEmpty() || k.get().keyUlids().isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (k.get().destroyed()) {
      return CompletableFuture.failedFuture(destroyed(k.get()));
    }
    if (ring == null) {
      return CompletableFuture.failedFuture(noKms(Kind.UNAVAILABLE, namespace));
    }
    return ring.resolveAsync(k.get().currentKeyId());
  }

  /**
   * The key with this id, for opening a sealed chunk: {@link KeyDestroyedException} once the
   * namespace it belongs to is shredded (recorded in the metastore, even while a node still holds
   * the key), UNAVAILABLE naming it when the KMS does not answer or the node has none.
   */
  public CompletableFuture<KeyEncryptionKey> openingKey(String keyId) {
    int slash = keyId.lastIndexOf('/');
    String namespace = slash < 0 ? keyId : keyId.substring(0, slash);
    Optional<NamespaceKeys> k = keys(namespace);
    if (k.isPresent() && k.get().destroyed()) {
      return CompletableFuture.failedFuture(new KeyDestroyedException(namespace, keyId));
    }
    if (ring == null) {
      return CompletableFuture.failedFuture(noKms(Kind.UNAVAILABLE, namespace));
    }
    return ring.resolveAsync(keyId);
  }

  /**
   * Fails a read of a shredded namespace before any tier is asked, so bytes still held in memory
   * (the tail cache keeps plaintext of recent batches) are never served after the destroy.
   *
   * @throws KeyDestroyedException if the namespace's keys were destroyed
   */
  public void checkReadable(String namespace) {
    Optional<NamespaceKeys> k = keys(namespace);
    if (k.isPresent() && k.get().destroyed()) {
      throw destroyed(k.get());
    }
  }

  /** Every node drops a shredded namespace's keys from memory as it applies the record. */
  public void onApplied(Outcome outcome) {
    if (ring != null && outcome instanceof Outcome.NamespaceKeysChanged c && c.keys().destroyed()) {
      ring.forget(c.keys().namespace());
    }
  }

  private CompletableFuture<NamespaceKeyInfo> propose(Command c, String namespace) {
    return meta.propose(c)
        .thenApply(
            applied -> {
              if (applied.outcome() instanceof Outcome.Rejected r) {
                throw rejections.apply(r, "namespace=" + namespace);
              }
              return info(((Outcome.NamespaceKeysChanged) applied.outcome()).keys());
            });
  }

  static NamespaceKeyInfo info(NamespaceKeys k) {
    return new NamespaceKeyInfo(
        k.namespace(),
        k.keyUlids().stream().map(u -> k.namespace() + "/" + u).toList(),
        k.currentKeyId(),
        k.destroyed());
  }

  private static KeyDestroyedException destroyed(NamespaceKeys k) {
    return new KeyDestroyedException(k.namespace(), k.currentKeyId());
  }

  private LoamException noKms(Kind kind, String namespace) {
    return new LoamException(
        kind,
        "namespace encryption needs a key-management service and this node has none"
            + " (LoamNode.Builder.keyManagement, ./loam --kms-keystore) node="
            + nodeId
            + " namespace="
            + namespace);
  }

  private static Throwable cause(Throwable e) {
    Throwable c = e;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
