package dev.loam.journal.seal;

import java.util.concurrent.CompletableFuture;

/**
 * Where a sealer writes segment objects: the node's object store, adapted by the node runtime
 * (loam-journal does not depend on loam-core's {@code ObjectStore}).
 */
@FunctionalInterface
public interface SegmentSink {
  /**
   * Writes {@code bytes} at {@code key} if no object is there (create-if-absent). The array is the
   * sink's from the call on.
   *
   * @return completes once the object is durable; fails if it was not written (an existing key is a
   *     failure: keys are unique per attempt)
   */
  CompletableFuture<Void> putIfAbsent(String key, byte[] bytes);
}
