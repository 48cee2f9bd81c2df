package dev.loam.journal.node;

import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.seal.OffsetIndex;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.SwapSegment;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A quorum partition's offset index in the metastore (decision 39): commits are {@link
 * CommitJournalSegment}s, fenced by the partition's assignment to the journal and a
 * compare-and-swap on the index's end; the segments committed from an offset on are read from this
 * node's replica. A segment becomes one index entry (fetches find batches inside it with the
 * segment's batch index), so the metastore holds about one entry per sealed segment.
 */
final class MetastoreOffsetIndex implements OffsetIndex {
  private static final Logger LOG = LoggerFactory.getLogger(MetastoreOffsetIndex.class);

  /** Index entries read per partition per pass: more than one pass's seals ever leave behind. */
  private static final int MAX_PENDING = 64;

  private final Metastore meta;
  private final Supplier<Origin> origin;
  private final String journal;

  MetastoreOffsetIndex(Metastore meta, Supplier<Origin> origin, String journal) {
    this.meta = meta;
    this.origin = origin;
    this.journal = journal;
  }

  @Override
  public List<SegmentPointer> committedFrom(long streamId, int partition, long fromOffset) {
    List<IndexEntry> es =
        meta.read(r -> r.indexEntries(streamId, partition, fromOffset, MAX_PENDING));
    List<SegmentPointer> out = new ArrayList<>();
    long next = fromOffset;
    int i = 0;
    while (i < es.size() && es.get(i).baseOffset() == next) {
      String key = es.get(i).objectKey();
      long base = next;
      while (i < es.size() && es.get(i).baseOffset() == next && es.get(i).objectKey().equals(key)) {
        next = es.get(i).endOffset();
        i++;
      }
      out.add(new SegmentPointer(base, next, key));
    }
    return out;
  }

  @Override
  public CompletableFuture<Boolean> commit(
      long streamId, int partition, SegmentPointer pointer, Segment segment, long timeMillis) {
    CommitJournalSegment c =
        new CommitJournalSegment(
            origin.get(),
            journal,
            streamId,
            partition,
            pointer.baseOffset(),
            pointer.endOffset(),
            pointer.key(),
            timeMillis,
            segment.size(),
            entries(segment.batches()));
    return meta.propose(c)
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.SegmentSwapped) {
                return true;
              }
              LOG.debug("journal segment commit refused segment={} {}", pointer.key(), a.outcome());
              return false;
            });
  }

  /** The segment's batches as few index entries as record counts allow (one, in practice). */
  static List<SwapSegment.SegmentEntry> entries(List<SegmentBatch> batches) {
    List<SwapSegment.SegmentEntry> out = new ArrayList<>();
    int i = 0;
    while (i < batches.size()) {
      SegmentBatch first = batches.get(i);
      long bytes = 0;
      long records = 0;
      long maxTs = Long.MIN_VALUE;
      int j = i;
      while (j < batches.size()
          && records + batches.get(j).recordCount() <= Integer.MAX_VALUE
          && bytes + batches.get(j).length() <= Integer.MAX_VALUE) {
        bytes += batches.get(j).length();
        records += batches.get(j).recordCount();
        maxTs = Math.max(maxTs, batches.get(j).maxTimestamp());
        j++;
      }
      out.add(new SwapSegment.SegmentEntry((int) records, first.position(), (int) bytes, maxTs));
      i = j;
    }
    return out;
  }
}
