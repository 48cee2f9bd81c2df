package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TrimPartition;
import java.util.ArrayList;
import java.util.List;

/**
 * Segments and retention (stream-engine.txt §5): the rules of SwapSegment (a compare-and-swap of a
 * range of index entries for a segment's) and TrimPartition (time and size retention, Kafka's
 * rules). Entries leave through the {@link ObjectLedger}, which retires the objects no entry
 * references any more.
 */
final class SegmentRules {
  private final Catalog catalog;
  private final ObjectLedger objects;
  private final long staleCommitMillis;

  SegmentRules(MetaSettings settings, Catalog catalog, ObjectLedger objects) {
    this.catalog = catalog;
    this.objects = objects;
    this.staleCommitMillis = settings.staleCommitAfter().toMillis();
  }

  /** Replaces entries {@code [from, to)} of {@code p} by {@code replacement}, in place. */
  private static void replaceEntries(
      PartitionState p, int from, int to, List<IndexEntry> replacement) {
    List<IndexEntry> all = new ArrayList<>(p.entries.size() - (to - from) + replacement.size());
    all.addAll(p.entries.subList(0, from));
    all.addAll(replacement);
    all.addAll(p.entries.subList(to, p.entries.size()));
    // Rebuild so the prefix max timestamps stay right: O(entries), bounded by the partition's
    // index size, which segmenting keeps small.
    p.entries.clear();
    for (IndexEntry e : all) {
      p.addEntry(e);
    }
  }

  /** Index of the entry starting exactly at {@code offset}, or -1. */
  private static int entryStartingAt(PartitionState p, long offset) {
    List<IndexEntry> found = p.entriesFrom(offset, 1);
    if (found.isEmpty() || found.get(0).baseOffset() != offset) {
      return -1;
    }
    // entriesFrom found it by binary search; locate its position the same way.
    int lo = 0;
    int hi = p.entries.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long b = p.entries.get(mid).baseOffset();
      if (b == offset) {
        return mid;
      } else if (b < offset) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return -1;
  }

  Outcome swapSegment(SwapSegment c, long clockMillis) {
    String where =
        " stream="
            + c.streamId()
            + " partition="
            + c.partition()
            + " from="
            + c.fromOffset()
            + " to="
            + c.toOffset()
            + " segment="
            + c.segmentKey();
    PartitionState p = catalog.partitionState(c.streamId(), c.partition());
    if (p == null) {
      return rejected(RejectReason.NOT_FOUND, "no such partition" + where);
    }
    if (c.segmentKey() == null || c.segmentKey().isEmpty()) {
      return rejected(RejectReason.INVALID, "swap names no segment" + where);
    }
    if (c.segmentTimeMillis() < clockMillis - staleCommitMillis) {
      // GC deletes unreferenced objects older than its orphan age, which is longer than this
      // window: refusing old segments here is what makes that deletion safe.
      return rejected(
          RejectReason.STALE_COMMIT,
          "segment is older than the stale-commit window"
              + where
              + " segmentTime="
              + c.segmentTimeMillis()
              + " clock="
              + clockMillis);
    }
    String invalid = validateSwap(c);
    if (invalid != null) {
      return rejected(RejectReason.INVALID, invalid + where);
    }
    List<IndexEntry> replacement = new ArrayList<>(c.entries().size());
    long offset = c.fromOffset();
    for (SwapSegment.SegmentEntry e : c.entries()) {
      replacement.add(
          new IndexEntry(
              offset,
              e.recordCount(),
              c.segmentKey(),
              e.byteOffset(),
              e.byteLength(),
              e.maxTimestamp()));
      offset += e.recordCount();
    }
    int first = entryStartingAt(p, c.fromOffset());
    if (first >= 0) {
      int end = first + replacement.size();
      if (end <= p.entries.size() && p.entries.subList(first, end).equals(replacement)) {
        // Already in place: a retry of a swap whose outcome was unknown.
        return new Outcome.SegmentSwapped(true, 0);
      }
    }
    // Compare-and-swap: exactly the expected entries must cover the range now.
    int last = first < 0 ? -1 : first + c.expected().size();
    if (first < 0
        || last > p.entries.size()
        || !p.entries.subList(first, last).equals(c.expected())) {
      return rejected(
          RejectReason.CONFLICT, "index entries changed since the segment was built" + where);
    }
    if (objects.inUse(c.segmentKey())) {
      return rejected(RejectReason.CONFLICT, "segment object is already in use" + where);
    }
    for (IndexEntry e : c.expected()) {
      objects.unref(e.objectKey(), clockMillis);
    }
    replaceEntries(p, first, last, replacement);
    objects.referenced(c.segmentKey(), replacement.size());
    return new Outcome.SegmentSwapped(false, c.expected().size());
  }

  /** Structural checks of a swap; returns a message or null when valid. */
  private static String validateSwap(SwapSegment c) {
    if (c.fromOffset() < 0 || c.toOffset() <= c.fromOffset()) {
      return "swap range must be non-empty";
    }
    if (c.expected().isEmpty() || c.entries().isEmpty()) {
      return "swap needs expected and new entries";
    }
    long next = c.fromOffset();
    for (IndexEntry e : c.expected()) {
      if (e.baseOffset() != next || e.recordCount() < 1) {
        return "expected entries must be dense from the range start baseOffset=" + e.baseOffset();
      }
      next = e.endOffset();
    }
    if (next != c.toOffset()) {
      return "expected entries must end at the range end end=" + next;
    }
    return validateEntries(c.entries(), c.segmentSize(), c.fromOffset(), c.toOffset());
  }

  /**
   * The checks of a segment's new index entries: whole batches in increasing byte order inside the
   * segment, holding exactly the records of {@code [from, to)}. Returns a message or null.
   */
  static String validateEntries(
      List<SwapSegment.SegmentEntry> entries, long segmentSize, long from, long to) {
    long records = 0;
    long prevEnd = 0;
    for (int i = 0; i < entries.size(); i++) {
      SwapSegment.SegmentEntry e = entries.get(i);
      if (e.recordCount() < 1 || e.byteLength() < Sequencer.MIN_BATCH_BYTES) {
        return "segment entry needs recordCount >= 1 and byteLength >= "
            + Sequencer.MIN_BATCH_BYTES
            + " entry="
            + i;
      }
      if (e.byteOffset() < prevEnd || e.byteOffset() > segmentSize - e.byteLength()) {
        return "segment entries must be in increasing byte order inside the segment entry="
            + i
            + " byteOffset="
            + e.byteOffset()
            + " segmentSize="
            + segmentSize;
      }
      prevEnd = e.byteOffset() + e.byteLength();
      records += e.recordCount();
    }
    if (records != to - from) {
      return "segment entries must hold exactly the range's records records=" + records;
    }
    return null;
  }

  Outcome trimPartition(TrimPartition c, long clockMillis) {
    String where =
        " stream="
            + c.streamId()
            + " partition="
            + c.partition()
            + " newLogStart="
            + c.newLogStartOffset()
            + " reason="
            + c.reason();
    Catalog.StreamState s = catalog.stream(c.streamId());
    PartitionState p = catalog.partitionState(c.streamId(), c.partition());
    if (s == null || p == null || c.reason() == null) {
      return rejected(RejectReason.NOT_FOUND, "no such partition" + where);
    }
    if (c.newLogStartOffset() <= p.logStartOffset) {
      return new Outcome.Trimmed(p.logStartOffset, 0);
    }
    if (c.newLogStartOffset() > p.highWatermark) {
      return rejected(
          RejectReason.INVALID,
          "log start cannot pass the high watermark" + where + " highWatermark=" + p.highWatermark);
    }
    int drop = 0;
    while (drop < p.entries.size() && p.entries.get(drop).endOffset() <= c.newLogStartOffset()) {
      drop++;
    }
    if (drop == 0 || p.entries.get(drop - 1).endOffset() != c.newLogStartOffset()) {
      return rejected(RejectReason.INVALID, "log start must be the end of an index entry" + where);
    }
    StreamConfig cfg = s.info.config();
    if (c.reason() == TrimPartition.Reason.TIME) {
      if (cfg.retentionMillis() < 0) {
        return rejected(RejectReason.INVALID, "stream has no time retention" + where);
      }
      long horizon = clockMillis - cfg.retentionMillis();
      for (int i = 0; i < drop; i++) {
        if (p.entries.get(i).maxTimestamp() >= horizon) {
          return rejected(
              RejectReason.INVALID,
              "entry is inside the time retention"
                  + where
                  + " maxTimestamp="
                  + p.entries.get(i).maxTimestamp()
                  + " horizon="
                  + horizon);
        }
      }
    } else {
      if (cfg.retentionBytes() < 0) {
        return rejected(RejectReason.INVALID, "stream has no size retention" + where);
      }
      if (drop >= p.entries.size()) {
        // Kafka never deletes the active segment: the newest entry always stays.
        return rejected(
            RejectReason.INVALID, "size retention never drops the newest entry" + where);
      }
      // Kafka's rule: drop old data only while at least the retention stays (a partition may exceed
      // its limit by less than one entry, never fall below it because of a trim).
      long kept = 0;
      for (int i = drop; i < p.entries.size(); i++) {
        kept += p.entries.get(i).byteLength();
      }
      if (kept < cfg.retentionBytes()) {
        return rejected(
            RejectReason.INVALID,
            "trim drops more than the size retention needs"
                + where
                + " retentionBytes="
                + cfg.retentionBytes());
      }
    }
    List<IndexEntry> dropped = new ArrayList<>(p.entries.subList(0, drop));
    replaceEntries(p, 0, drop, List.of());
    p.logStartOffset = c.newLogStartOffset();
    for (IndexEntry e : dropped) {
      objects.unref(e.objectKey(), clockMillis);
    }
    return new Outcome.Trimmed(p.logStartOffset, drop);
  }
}
