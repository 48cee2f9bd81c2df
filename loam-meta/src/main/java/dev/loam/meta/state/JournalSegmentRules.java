package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.SwapSegment;
import dev.loam.wal.DurabilityClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The rule of {@link CommitJournalSegment} (docs/design/quorum.md "Sealing", decision 39): a quorum
 * partition's offset index grows by whole sealed segments, each starting at the end of the last,
 * committed only by a replica of the journal the partition is assigned to.
 */
final class JournalSegmentRules {
  private final Catalog catalog;
  private final ObjectLedger objects;
  private final JournalTable journals;
  private final long staleCommitMillis;

  JournalSegmentRules(
      MetaSettings settings, Catalog catalog, ObjectLedger objects, JournalTable journals) {
    this.catalog = catalog;
    this.objects = objects;
    this.journals = journals;
    this.staleCommitMillis = settings.staleCommitAfter().toMillis();
  }

  Outcome commit(CommitJournalSegment c, long clockMillis) {
    String where =
        " journal="
            + c.journal()
            + " stream="
            + c.streamId()
            + " partition="
            + c.partition()
            + " from="
            + c.fromOffset()
            + " to="
            + c.toOffset()
            + " segment="
            + c.segmentKey();
    Catalog.StreamState s = catalog.stream(c.streamId());
    PartitionState p = catalog.partitionState(c.streamId(), c.partition());
    if (s == null || p == null) {
      return rejected(RejectReason.NOT_FOUND, "no such partition" + where);
    }
    if (s.info.config().durabilityClass() != DurabilityClass.QUORUM) {
      return rejected(
          RejectReason.INVALID, "only a quorum partition's journal commits segments" + where);
    }
    String assigned = journals.journalOf(c.streamId(), c.partition()).orElse(null);
    if (!c.journal().equals(assigned)) {
      return rejected(
          RejectReason.NOT_OWNER,
          "the partition is not assigned to this journal" + where + " assigned=" + assigned);
    }
    List<String> replicas = journals.replicas(c.journal()).orElse(List.of());
    if (!replicas.contains(c.origin().nodeId())) {
      return rejected(
          RejectReason.NOT_OWNER,
          "the proposer is not a replica of the journal"
              + where
              + " node="
              + c.origin().nodeId()
              + " replicas="
              + replicas);
    }
    if (c.segmentKey() == null || c.segmentKey().isEmpty()) {
      return rejected(RejectReason.INVALID, "commit names no segment" + where);
    }
    if (c.segmentTimeMillis() < clockMillis - staleCommitMillis) {
      // As for SwapSegment: GC deletes unreferenced objects older than its orphan age, longer than
      // this window, so a segment that may already be deleted is never referenced.
      return rejected(
          RejectReason.STALE_COMMIT,
          "segment is older than the stale-commit window"
              + where
              + " segmentTime="
              + c.segmentTimeMillis()
              + " clock="
              + clockMillis);
    }
    if (c.fromOffset() < 0 || c.toOffset() <= c.fromOffset() || c.entries().isEmpty()) {
      return rejected(RejectReason.INVALID, "commit needs a non-empty range and entries" + where);
    }
    String invalid =
        SegmentRules.validateEntries(c.entries(), c.segmentSize(), c.fromOffset(), c.toOffset());
    if (invalid != null) {
      return rejected(RejectReason.INVALID, invalid + where);
    }
    List<IndexEntry> added = new ArrayList<>(c.entries().size());
    long offset = c.fromOffset();
    for (SwapSegment.SegmentEntry e : c.entries()) {
      added.add(
          new IndexEntry(
              offset,
              e.recordCount(),
              c.segmentKey(),
              e.byteOffset(),
              e.byteLength(),
              e.maxTimestamp()));
      offset += e.recordCount();
    }
    if (c.fromOffset() < p.highWatermark) {
      List<IndexEntry> there = p.entriesFrom(c.fromOffset(), added.size());
      if (there.equals(added)) {
        // Already in place: a retry of a commit whose outcome was unknown.
        return new Outcome.SegmentSwapped(true, 0);
      }
    }
    if (c.fromOffset() != p.highWatermark) {
      return rejected(
          RejectReason.CONFLICT,
          "a journal segment must start at the end of the partition's index"
              + where
              + " indexEnd="
              + p.highWatermark);
    }
    if (objects.inUse(c.segmentKey())) {
      return rejected(RejectReason.CONFLICT, "segment object is already in use" + where);
    }
    for (IndexEntry e : added) {
      p.addEntry(e);
    }
    p.highWatermark = c.toOffset();
    objects.referenced(c.segmentKey(), added.size());
    return new Outcome.SegmentSwapped(false, 0);
  }
}
