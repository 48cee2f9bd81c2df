package dev.loam.meta.command;

import java.util.List;

/**
 * Replaces the index entries of offsets {@code [fromOffset, toOffset)} of one partition with
 * entries pointing into a segment object (stream-engine.txt §5: a segment becomes real by an
 * atomic, fenced swap of index entries). Fencing: the node epoch (as every command) plus a
 * compare-and-swap: the swap is refused with CONFLICT unless the partition's current entries for
 * that range are exactly {@code expected}, so a stale segmenter (one that read the index before a
 * retention trim, another swap or a compaction) can never overwrite newer entries. A swap whose
 * result is already in place is a deduplicated success (a retry after an unknown outcome). A
 * segment older than the stale-commit window is refused with STALE_COMMIT, so an orphaned segment
 * that GC may delete can never become referenced later. The swap is owner-bound
 * (ownership-and-routing.txt): refused with NOT_OWNER from a node that does not hold the stream
 * open, and, wrapped in {@link OwnerFenced}, fenced by the stream epoch too.
 *
 * @param expected the current entries of the range, in offset order, dense from {@code fromOffset}
 *     to {@code toOffset}
 * @param segmentKey the segment object, {@code seg/<stream>/<partition>/<base>-<ulid>.seg}
 * @param segmentTimeMillis the segment's creation time (its ULID time)
 * @param segmentSize the segment object's size in bytes
 * @param entries the new entries, in offset order from {@code fromOffset}: byte ranges inside the
 *     segment holding whole batches
 */
public record SwapSegment(
    Origin origin,
    long streamId,
    int partition,
    long fromOffset,
    long toOffset,
    List<IndexEntry> expected,
    String segmentKey,
    long segmentTimeMillis,
    long segmentSize,
    List<SegmentEntry> entries)
    implements Command {
  public SwapSegment {
    expected = List.copyOf(expected);
    entries = List.copyOf(entries);
  }

  /** One new index entry inside the segment; its offsets follow from the previous entry's. */
  public record SegmentEntry(int recordCount, long byteOffset, int byteLength, long maxTimestamp) {}
}
