package dev.loam.meta.state;

import dev.loam.meta.command.IndexEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;

/**
 * One partition's sequencer state (stream-engine.txt §3 "Sequencer"): bounds, offset index and
 * producer-state table. Mutated only by the rules of {@link MetaStateMachine}.
 */
final class PartitionState {
  long logStartOffset;
  long highWatermark;
  final ArrayList<IndexEntry> entries = new ArrayList<>();

  /**
   * {@code prefixMaxTimestamp[i]} = max of the entries' max timestamps over {@code [0, i]}: a
   * monotone array, so "first entry with maxTimestamp >= ts" is a binary search.
   */
  private long[] prefixMaxTimestamp = new long[4];

  /** Producer id -> its state, sorted so snapshots are byte-identical across replicas. */
  final TreeMap<Long, ProducerState> producers = new TreeMap<>();

  void addEntry(IndexEntry e) {
    int n = entries.size();
    if (n == prefixMaxTimestamp.length) {
      prefixMaxTimestamp = Arrays.copyOf(prefixMaxTimestamp, n * 2);
    }
    prefixMaxTimestamp[n] =
        n == 0 ? e.maxTimestamp() : Math.max(prefixMaxTimestamp[n - 1], e.maxTimestamp());
    entries.add(e);
  }

  List<IndexEntry> entriesFrom(long fromOffset, int maxEntries) {
    int n = entries.size();
    if (maxEntries <= 0 || n == 0) {
      return List.of();
    }
    // Largest i with entries[i].baseOffset <= fromOffset.
    int lo = 0;
    int hi = n - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (entries.get(mid).baseOffset() <= fromOffset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    int start;
    if (found < 0) {
      start = 0;
    } else if (entries.get(found).endOffset() > fromOffset) {
      start = found;
    } else {
      start = found + 1;
    }
    if (start >= n) {
      return List.of();
    }
    return List.copyOf(entries.subList(start, (int) Math.min(n, (long) start + maxEntries)));
  }

  IndexEntry entryForTimestamp(long timestampMillis) {
    int n = entries.size();
    int lo = 0;
    int hi = n - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (prefixMaxTimestamp[mid] >= timestampMillis) {
        found = mid;
        hi = mid - 1;
      } else {
        lo = mid + 1;
      }
    }
    return found < 0 ? null : entries.get(found);
  }

  /** The last {@code producerBatchesKept} batches of one producer id at its current epoch. */
  static final class ProducerState {
    short epoch;

    /** Oldest first. */
    final ArrayDeque<SeqEntry> batches = new ArrayDeque<>();

    ProducerState(short epoch) {
      this.epoch = epoch;
    }

    SeqEntry find(int baseSequence, int lastSequence) {
      for (SeqEntry e : batches) {
        if (e.baseSequence() == baseSequence && e.lastSequence() == lastSequence) {
          return e;
        }
      }
      return null;
    }

    void add(SeqEntry e, int keep) {
      batches.addLast(e);
      while (batches.size() > keep) {
        batches.removeFirst();
      }
    }
  }

  /** One remembered batch: its sequence range and the offset it was appended at. */
  record SeqEntry(int baseSequence, int lastSequence, long baseOffset) {}
}
