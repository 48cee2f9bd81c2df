package dev.loam.core.write;

import dev.loam.core.write.WalWriter.BatchAck;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Where the {@link Appender} sends the batches of quorum streams instead of a WAL writer: their
 * journals (docs/design/quorum.md "Quorum streams"). One ack per batch, in order.
 */
@FunctionalInterface
public interface QuorumSink {
  /** Appends each batch to its partition's journal. */
  CompletableFuture<List<BatchAck>> submit(
      String namespace, String stream, List<PendingBatch> batches);
}
