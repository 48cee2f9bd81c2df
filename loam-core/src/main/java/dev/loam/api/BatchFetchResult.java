package dev.loam.api;

import java.nio.ByteBuffer;

/**
 * Stored RecordBatch v2 bytes of one partition, read by {@link Log#fetchBatches}: whole batches in
 * offset order, concatenated, each with the base offset the sequencer assigned patched into its
 * first eight bytes (the field lies outside the CRC, so the batch stays valid). The first batch is
 * the one holding the requested offset, so it may start before it, as Kafka's fetch does.
 *
 * @param batches read-only, position 0; empty when nothing was read
 * @param nextOffset the offset to fetch next: one past the last record of the last batch, or the
 *     requested offset when nothing was read
 */
public record BatchFetchResult(
    ByteBuffer batches, long nextOffset, long highWatermark, long logStartOffset) {
  public BatchFetchResult {
    batches = batches.asReadOnlyBuffer();
  }
}
