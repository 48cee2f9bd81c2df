package dev.loam.meta.command;

/**
 * Puts one partition of a quorum stream on a journal (docs/design/quorum.md "Placement"): the
 * placed journal with the fewest partitions, ties by name. A partition already on a journal answers
 * that journal's placement and changes nothing.
 */
public record AssignJournalPartition(Origin origin, long streamId, int partition)
    implements Command {}
