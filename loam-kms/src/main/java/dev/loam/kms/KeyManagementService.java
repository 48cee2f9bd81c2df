package dev.loam.kms;

import dev.loam.error.CorruptionException;
import dev.loam.error.KeyDestroyedException;
import java.util.concurrent.CompletableFuture;

/**
 * The key-management SPI: one master key per namespace, held by the service, that wraps and unwraps
 * the namespace's key-encryption keys (docs/reference/kms.md; key hierarchy in docs/security.md).
 * The master key's material never leaves the service.
 *
 * <p>Every method is asynchronous and reports failures only through its future, never by throwing
 * (a {@code null} argument is a programming error and may throw {@link NullPointerException} at
 * once). Futures fail with:
 *
 * <ul>
 *   <li>{@link KmsKeyNotFoundException}: the namespace has no master key (never created).
 *   <li>{@link KeyDestroyedException}: the namespace's master key was destroyed; everything it
 *       wrapped is unreadable for good (crypto-shredding).
 *   <li>{@link KmsKeyExistsException}: {@link #create} found a key already there.
 *   <li>{@link CorruptionException}: a wrapped key that does not unwrap under the namespace's key
 *       (damaged, or wrapped for another namespace).
 *   <li>{@link KmsUnavailableException}: transient (service unreachable, throttled, timed out, or
 *       this handle closed); nothing changed, the same call may succeed later.
 *   <li>{@link dev.loam.error.LoamException} of kind {@code INVALID}: a namespace id that is not
 *       1..128 characters of {@code [A-Za-z0-9._-]}, or a plaintext outside 1..1024 bytes.
 * </ul>
 *
 * <p>Implementations are thread-safe, and every handle on the same service sees the others'
 * completed operations. Byte arrays passed in are owned by the service until the future completes;
 * arrays handed out are owned by the caller, who should overwrite plaintext key material after use.
 */
public interface KeyManagementService extends AutoCloseable {

  /**
   * Creates the namespace's master key, version 1. Fails with: exists (also when the key was
   * destroyed: a destroyed namespace key is never re-created), unavailable, invalid.
   */
  CompletableFuture<KeyVersion> create(String namespace);

  /**
   * The namespace's current key version. Fails with: not found, destroyed, unavailable, invalid.
   */
  CompletableFuture<KeyVersion> current(String namespace);

  /**
   * Encrypts {@code plaintext} (a key, 1..1024 bytes) under the namespace's current key version.
   * The result is opaque, names the version that wrapped it, and is bound to the namespace: it
   * unwraps only through {@link #unwrap} of the same namespace. Fails with: not found, destroyed,
   * unavailable, invalid.
   */
  CompletableFuture<byte[]> wrap(String namespace, byte[] plaintext);

  /**
   * Decrypts what {@link #wrap} returned for this namespace, with whichever version wrapped it
   * (rotation keeps old versions for unwrapping). Fails with: corruption, not found, destroyed,
   * unavailable, invalid.
   */
  CompletableFuture<byte[]> unwrap(String namespace, byte[] wrapped);

  /**
   * Starts a new key version, which wraps from now on; older versions still unwrap. Fails with: not
   * found, destroyed, unavailable, invalid.
   */
  CompletableFuture<KeyVersion> rotate(String namespace);

  /**
   * Destroys every version of the namespace's master key. Afterwards every operation of the
   * namespace fails with {@link KeyDestroyedException}; other namespaces are unaffected. Destroying
   * a destroyed key succeeds. Fails with: not found, unavailable, invalid.
   */
  CompletableFuture<Void> destroy(String namespace);

  /**
   * Releases resources. Idempotent. Calls made after close fail with {@link
   * KmsUnavailableException}.
   */
  @Override
  void close();
}
