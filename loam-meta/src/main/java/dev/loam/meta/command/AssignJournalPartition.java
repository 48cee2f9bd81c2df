package dev.loam.meta.command;

/**
 * Puts one partition of a quorum stream on a journal (docs/design/quorum.md "Placement"). A
 * partition already on a journal answers that journal's placement and changes nothing.
 *
 * <p>Without a {@link Spread} (the command's first encoding, tag 47, kept so that its log entries
 * apply as they did) the partition goes to the placed journal with the fewest partitions, ties by
 * name. With one (tag 53), apply first places as many journals of the spread's family as the live
 * journal nodes' capacity calls for, then puts the partition on the family's journal with the
 * fewest partitions.
 *
 * @param spread null for the first rule; else the family of journals to spread over
 */
public record AssignJournalPartition(Origin origin, long streamId, int partition, Spread spread)
    implements Command {

  /** The first rule: the placed journal with the fewest partitions. */
  public AssignJournalPartition(Origin origin, long streamId, int partition) {
    this(origin, streamId, partition, null);
  }

  /**
   * A family of journals named {@code namePrefix + n} (n = 1, 2, ...), each placed like {@link
   * PlaceJournal} with {@code replicas} replicas among the live nodes with slots that advertise
   * {@code requiredEndpoint}. The family holds one journal per {@code replicas} slots of those
   * nodes, rounded up, so that every journal node replicates at least one journal and the journals
   * spread over the nodes by capacity (at most {@code JournalTable.MAX_FAMILY} journals).
   *
   * @param namePrefix the journals' name before their number, {@code [A-Za-z0-9._-]{1,100}}
   * @param replicas each journal's replicas, 1..9
   * @param requiredEndpoint the endpoint a replica must advertise, not empty
   * @param placementHint null, or the zone or node id the partition's producers are in: the
   *     partition goes to a journal with a replica there, and its journal's leader is moved there
   *     (docs/design/quorum.md "Leader transfer"); 1..128 characters
   */
  public record Spread(
      String namePrefix, int replicas, String requiredEndpoint, String placementHint) {
    /** A spread without a placement hint. */
    public Spread(String namePrefix, int replicas, String requiredEndpoint) {
      this(namePrefix, replicas, requiredEndpoint, null);
    }
  }
}
