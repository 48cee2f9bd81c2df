package dev.loam.spi.quorum;

import java.util.List;

/**
 * Committed batches of one quorum partition, as a journal replica holds them.
 *
 * @param batches Kafka RecordBatch v2 bytes, each with its assigned base offset written in, in
 *     offset order; empty at the high watermark
 * @param startOffset the first offset the replica can serve from its tail: below it the data is
 *     sealed into segments, read through the partition's offset index (a read from a sealed offset
 *     answers no batches)
 * @param highWatermark the offset the next accepted batch gets
 */
public record QuorumRead(List<byte[]> batches, long startOffset, long highWatermark) {
  /** Copies the list. */
  public QuorumRead {
    batches = List.copyOf(batches);
  }
}
