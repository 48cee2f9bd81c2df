package com.example.dirstore;

import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import java.util.Arrays;
import java.util.concurrent.CompletionException;

/**
 * The SPI's recipe for writing an object exactly once over an unreliable store: retry a create that
 * failed with unavailable or an unknown outcome; when a retry finds the key taken, read it back and
 * compare, since the earlier attempt may have landed.
 */
public final class CreateOnce {
  private CreateOnce() {}

  /**
   * Creates {@code key} with {@code bytes}, trying at most {@code attempts} times. Returns true if
   * this call (or an earlier attempt of it) wrote the object, false if another writer's different
   * bytes hold the key.
   */
  public static boolean create(ObjectStore store, String key, byte[] bytes, int attempts) {
    boolean uncertain = false;
    for (int i = 1; ; i++) {
      try {
        store.create(key, bytes).join();
        return true;
      } catch (CompletionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof ObjectExistsException) {
          return uncertain && Arrays.equals(store.get(key).join(), bytes);
        }
        boolean retryable =
            cause instanceof StoreUnavailableException
                || cause instanceof StoreOutcomeUnknownException;
        if (!retryable || i >= attempts) {
          throw e;
        }
        uncertain |= cause instanceof StoreOutcomeUnknownException;
      }
    }
  }
}
