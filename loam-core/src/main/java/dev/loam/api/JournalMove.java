package dev.loam.api;

import java.util.List;
import java.util.Objects;

/**
 * A move of a quorum stream's partition from one journal to another, as begun by {@link
 * Log#moveJournalPartition}: the source journal's leader then seals the partition's whole tail,
 * releases it and flips its assignment to the target (docs/design/quorum.md "Moving a partition
 * between journals"). {@link StreamDescription.PartitionBounds#journal()} shows the target once the
 * move is done.
 *
 * @param namespace the stream's namespace
 * @param stream the stream's name
 * @param partition the partition that moves
 * @param fromJournal the journal holding the partition when the move began
 * @param toJournal the journal that takes it over
 * @param toReplicas the target journal's replicas, node ids in placement order
 */
public record JournalMove(
    String namespace,
    String stream,
    int partition,
    String fromJournal,
    String toJournal,
    List<String> toReplicas) {
  public JournalMove {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(stream, "stream");
    Objects.requireNonNull(fromJournal, "fromJournal");
    Objects.requireNonNull(toJournal, "toJournal");
    toReplicas = List.copyOf(toReplicas);
  }
}
