package dev.loam.journal.seal;

import dev.loam.journal.entry.SegmentPointer;
import dev.loam.wal.segment.Segment;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The offset index a sealer commits its segments into before the journal drops them from its tail
 * (docs/design/quorum.md "Sealing"): on a node, the metastore's index of the partition, through
 * {@code CommitJournalSegment}. The index, not the journal, decides which segment holds a range: a
 * seal is proposed to the journal only for a segment the index holds.
 */
public interface OffsetIndex {
  /**
   * The segments the index holds for the partition from {@code fromOffset} on, consecutive and the
   * first starting exactly there: ranges committed whose journal seal is still missing (a leader
   * that died between the two steps, or a seal whose proposal failed). Empty when none.
   */
  List<SegmentPointer> committedFrom(long streamId, int partition, long fromOffset);

  /**
   * Commits {@code segment}, stored at {@code pointer.key()}, as the partition's range {@code
   * [pointer.baseOffset(), pointer.endOffset())}.
   *
   * @return true once the index holds it, false when the index refused it (another segment holds
   *     the range, or the proposer is fenced: the object is an orphan); fails when the outcome is
   *     unknown (the next pass finds out through {@link #committedFrom})
   */
  CompletableFuture<Boolean> commit(
      long streamId, int partition, SegmentPointer pointer, Segment segment, long timeMillis);
}
