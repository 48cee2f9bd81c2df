package dev.loam.meta.command;

import java.util.List;

/**
 * Appends a sealed segment of a quorum partition to the partition's offset index
 * (docs/design/quorum.md "Sealing"): the journal's sealer wrote offsets {@code [fromOffset,
 * toOffset)} of its committed tail into the segment object, and this command makes the index point
 * at it, before the journal drops the range from its tail. The offset index of a quorum partition
 * holds only sealed segments; its high watermark is the end of the last one.
 *
 * <p>Fencing (decision 39): the node epoch (as every command); the assignment, since the partition
 * must be on {@code journal} and the proposer one of that journal's replicas (NOT_OWNER otherwise);
 * and a compare-and-swap on the index's end, since {@code fromOffset} must be the end of the last
 * committed segment (CONFLICT otherwise), so two sealers can never both commit one range nor leave
 * a hole. A commit whose result is already in place is a deduplicated success (a retry after an
 * unknown outcome). A segment older than the stale-commit window is refused STALE_COMMIT, as for
 * every swap.
 *
 * @param journal the journal whose sealer wrote the segment
 * @param segmentKey the segment object, {@code
 *     seg/<cluster>/<stream>/<partition>/<base>-<ulid>.seg}
 * @param segmentTimeMillis the segment's creation time (its ULID time)
 * @param segmentSize the segment object's size in bytes
 * @param entries the new index entries, in offset order from {@code fromOffset}: byte ranges inside
 *     the segment holding whole batches
 */
public record CommitJournalSegment(
    Origin origin,
    String journal,
    long streamId,
    int partition,
    long fromOffset,
    long toOffset,
    String segmentKey,
    long segmentTimeMillis,
    long segmentSize,
    List<SwapSegment.SegmentEntry> entries)
    implements Command {
  public CommitJournalSegment {
    entries = List.copyOf(entries);
  }
}
