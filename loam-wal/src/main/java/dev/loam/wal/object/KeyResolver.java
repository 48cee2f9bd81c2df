package dev.loam.wal.object;

import dev.loam.error.KeyDestroyedException;
import dev.loam.error.LoamException;

/**
 * Finds the key-encryption key a sealed chunk names (docs/formats/wal-object-v2.md). The node's
 * implementation asks the key-management service and caches the key in memory.
 */
@FunctionalInterface
public interface KeyResolver {
  /**
   * @return the key with this id
   * @throws KeyDestroyedException if the key was destroyed
   * @throws LoamException UNAVAILABLE if the key cannot be fetched now, NOT_FOUND if no such key
   *     exists
   */
  KeyEncryptionKey resolve(String keyId);
}
