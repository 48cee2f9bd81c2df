package dev.loam.journal.state;

import dev.loam.journal.entry.SegmentPointer;
import java.util.ArrayList;

/**
 * One hosted partition of a journal: its offsets, sealed segments, unsealed tail and producer table
 * (docs/design/quorum.md). Mutated only by {@link JournalState}.
 */
final class PartitionJournal {
  /**
   * Segment pointers a partition keeps: its newest ones. The metastore's offset index holds every
   * segment and is what reads go through; the journal's pointers only answer a read just below the
   * sealed offset, so keeping them all would grow the state and the snapshot by one pointer per
   * segment for the partition's whole life (docs/formats/journal-snapshot-v2.md).
   */
  static final int KEPT_SEGMENT_POINTERS = 16;

  final long startOffset;
  long sealedOffset;
  long nextOffset;
  final ArrayList<SegmentPointer> segments = new ArrayList<>();

  /** From {@link #sealedOffset} to {@link #nextOffset}, dense, in offset order. */
  final ArrayList<TailBatch> tail = new ArrayList<>();

  long tailBytes;
  final ProducerTable producers = new ProducerTable();

  PartitionJournal(long startOffset) {
    this.startOffset = startOffset;
    this.sealedOffset = startOffset;
    this.nextOffset = startOffset;
  }

  void addTail(TailBatch b) {
    tail.add(b);
    tailBytes += b.bytes().length;
    nextOffset = b.endOffset();
  }

  /** Index of the tail batch holding {@code offset}, for sealedOffset ≤ offset < nextOffset. */
  int tailIndexOf(long offset) {
    int lo = 0;
    int hi = tail.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (tail.get(mid).baseOffset() <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** Adds a sealed segment and drops the oldest pointers beyond {@link #KEPT_SEGMENT_POINTERS}. */
  void addSegment(SegmentPointer s) {
    segments.add(s);
    if (segments.size() > KEPT_SEGMENT_POINTERS) {
      segments.subList(0, segments.size() - KEPT_SEGMENT_POINTERS).clear();
    }
  }

  /**
   * The segment holding {@code offset}, for startOffset ≤ offset < sealedOffset, or null when its
   * pointer is no longer kept (the offset index has it).
   */
  SegmentPointer segmentOf(long offset) {
    if (segments.isEmpty() || offset < segments.get(0).baseOffset()) {
      return null;
    }
    int lo = 0;
    int hi = segments.size() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (segments.get(mid).baseOffset() <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return segments.get(lo);
  }
}
