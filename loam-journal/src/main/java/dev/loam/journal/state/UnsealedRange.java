package dev.loam.journal.state;

import java.util.List;

/**
 * The oldest unsealed batches of one partition, from its sealed offset on: what the next seal of
 * the partition writes into a segment.
 *
 * @param baseOffset the partition's sealed offset: the first batch's base offset
 * @param batches RecordBatch v2 bytes with their assigned base offsets, dense, in offset order
 */
public record UnsealedRange(long streamId, int partition, long baseOffset, List<byte[]> batches) {
  /** Copies the list. */
  public UnsealedRange {
    batches = List.copyOf(batches);
  }
}
