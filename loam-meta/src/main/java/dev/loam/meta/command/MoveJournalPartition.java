package dev.loam.meta.command;

/**
 * Moves a quorum partition from one journal to another (docs/design/quorum.md "Moving a partition
 * between journals"), in two steps of one command type:
 *
 * <ul>
 *   <li>{@code sealedEnd == -1} begins the move: the partition is marked as moving to {@code
 *       toJournal}; the source journal's leader then seals its whole tail and releases it. A move
 *       already begun to the same journal answers as before and changes nothing.
 *   <li>{@code sealedEnd >= 0} completes it: accepted only from a replica of {@code fromJournal},
 *       only while the move is marked, and only when the partition's offset index ends exactly at
 *       {@code sealedEnd} (every record the source acknowledged is in a sealed segment); the
 *       assignment flips to {@code toJournal}, which hosts the partition from {@code sealedEnd} on.
 *       A retry after the flip answers the new placement and changes nothing.
 * </ul>
 *
 * <p>Both answer {@code JournalPlaced(toJournal, its replicas, alreadyPlaced)}.
 */
public record MoveJournalPartition(
    Origin origin,
    long streamId,
    int partition,
    String fromJournal,
    String toJournal,
    long sealedEnd)
    implements Command {
  /** The {@code sealedEnd} of the step that begins a move. */
  public static final long BEGIN = -1;
}
