package dev.loam.meta.command;

/**
 * Places a quorum journal (docs/design/quorum.md "Placement"): the metastore picks {@code replicas}
 * live nodes for it, in distinct zones where the cluster has enough of them, the least loaded
 * first. Placing a journal that exists answers its placement and changes nothing.
 *
 * @param journal the journal's name, {@code [A-Za-z0-9._-]{1,128}}
 * @param replicas how many replicas, 1..9 (normally 3)
 * @param requiredEndpoint when not null, only nodes that advertise an endpoint of this name (the
 *     journal port, {@code journal}) are candidates; null considers every live node with slots (the
 *     rule of the command's first encoding, kept so that its log entries apply as they did)
 */
public record PlaceJournal(Origin origin, String journal, int replicas, String requiredEndpoint)
    implements Command {
  /** A placement among every live node with slots, whatever it advertises. */
  public PlaceJournal(Origin origin, String journal, int replicas) {
    this(origin, journal, replicas, null);
  }
}
