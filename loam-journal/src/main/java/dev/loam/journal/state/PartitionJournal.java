package dev.loam.journal.state;

import dev.loam.journal.entry.SegmentPointer;
import java.util.ArrayList;

/**
 * One hosted partition of a journal: its offsets, sealed segments, unsealed tail and producer table
 * (docs/design/quorum.md). Mutated only by {@link JournalState}.
 */
final class PartitionJournal {
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

  /** The segment holding {@code offset}, for startOffset ≤ offset < sealedOffset. */
  SegmentPointer segmentOf(long offset) {
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
