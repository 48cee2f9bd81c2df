package dev.loam.meta.command;

/**
 * Places a quorum journal (docs/design/quorum.md "Placement"): the metastore picks {@code replicas}
 * live nodes for it, in distinct zones where the cluster has enough of them, the least loaded
 * first. Placing a journal that exists answers its placement and changes nothing.
 *
 * @param journal the journal's name, {@code [A-Za-z0-9._-]{1,128}}
 * @param replicas how many replicas, 1..9 (normally 3)
 */
public record PlaceJournal(Origin origin, String journal, int replicas) implements Command {}
