package dev.loam.core.write;

import dev.loam.core.crypto.NamespaceEncryption;
import dev.loam.core.write.WalWriter.BatchAck;
import dev.loam.wal.object.KeyEncryptionKey;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Hands batches to a WAL writer sealed under their namespace's current key: the one step of an
 * append that may wait on the KMS, shared by plain and fenced appends so that neither writes an
 * encrypted namespace's records in plaintext.
 */
final class SealedSubmit {
  private SealedSubmit() {}

  /**
   * Submits {@code batches} sealed under the namespace's current key (plain when it has none),
   * after {@code admission}. Getting the key is the only step that may wait on the KMS, and it
   * waits for this namespace alone: a KMS that is slow or down fails these batches (UNAVAILABLE
   * naming the namespace) before they reach the shared buffer, so other namespaces' appends never
   * wait behind it.
   */
  static CompletableFuture<List<BatchAck>> submit(
      WalWriter writer,
      NamespaceEncryption encryption,
      String namespace,
      List<PendingBatch> batches,
      Runnable admission) {
    CompletableFuture<KeyEncryptionKey> key = encryption.sealingKey(namespace);
    if (key.isDone()) {
      // The common case (a plain namespace, or a key held in memory): no hop off this thread,
      // and errors arrive unwrapped, as before encryption existed.
      KeyEncryptionKey kek;
      try {
        kek = key.join();
      } catch (CompletionException e) {
        return CompletableFuture.failedFuture(e.getCause());
      }
      if (admission != null) {
        try {
          admission.run();
        } catch (RuntimeException e) {
          return CompletableFuture.failedFuture(e);
        }
      }
      return writer.submit(sealed(batches, kek));
    }
    return key.thenCompose(
        kek -> {
          if (admission != null) {
            admission.run();
          }
          return writer.submit(sealed(batches, kek));
        });
  }

  private static List<PendingBatch> sealed(List<PendingBatch> batches, KeyEncryptionKey kek) {
    if (kek == null) {
      return batches;
    }
    List<PendingBatch> out = new ArrayList<>(batches.size());
    for (PendingBatch b : batches) {
      out.add(b.sealedWith(kek));
    }
    return out;
  }
}
