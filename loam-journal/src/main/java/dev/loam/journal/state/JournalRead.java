package dev.loam.journal.state;

import dev.loam.journal.entry.SegmentPointer;
import java.util.List;
import java.util.Optional;

/**
 * The answer to a read of one partition of a journal: either batches of the unsealed tail, or the
 * segment that holds the offset asked for (offsets below the sealed offset).
 *
 * @param batches RecordBatch v2 bytes with their assigned base offsets, in offset order; empty when
 *     the offset is at the high watermark or sealed
 * @param segment the segment holding the offset asked for, when it is sealed and among the
 *     partition's newest segments (older ones are found through the metastore's offset index)
 * @param sealedOffset offsets below it are in segments
 * @param highWatermark the offset the next accepted batch gets
 */
public record JournalRead(
    List<byte[]> batches, Optional<SegmentPointer> segment, long sealedOffset, long highWatermark) {
  /** Copies the list. */
  public JournalRead {
    batches = List.copyOf(batches);
  }
}
