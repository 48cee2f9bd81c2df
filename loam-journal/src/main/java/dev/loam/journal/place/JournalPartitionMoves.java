package dev.loam.journal.place;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.ratis.Journals;
import dev.loam.journal.seal.JournalSealer;
import dev.loam.journal.state.SealPoint;
import dev.loam.meta.MetaReader;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.JournalPartition;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PartitionInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The source side of moving a quorum partition between journals (docs/design/quorum.md "Moving a
 * partition between journals"), one step per placement pass of the source journal's leader, so a
 * move survives crashes and leader changes: each step looks at the state and does what is left.
 *
 * <ol>
 *   <li>While the partition's tail holds unsealed batches: seal the oldest of them ({@link
 *       JournalSealer#sealTail}: segment, offset-index commit, {@code SEAL}).
 *   <li>Once the tail is empty: propose {@code RELEASE(end)}; the journal accepts it only if no
 *       append came since the last seal (else the next pass seals those), and forgets the
 *       partition, so later appends to the source are refused and never acknowledged.
 *   <li>Once the source no longer hosts it (as this leader sees once it applied every committed
 *       entry): propose {@code MoveJournalPartition} completing the move at the end of the
 *       partition's offset index, which the metastore accepts only if the move is still marked and
 *       the index ends there. The target journal's leader then hosts the partition from that offset
 *       on (its own placement pass).
 * </ol>
 *
 * <p>No record is copied: everything the source acknowledged is in segments the offset index
 * references, which the target's reads go through like any sealed offsets.
 */
final class JournalPartitionMoves {
  private JournalPartitionMoves() {}

  /** An assigned partition as a placement pass sees it. */
  record Placed(long streamId, int partition, long indexEnd, String moveTarget) {}

  /** The partitions assigned to {@code journal}, with their index ends and moves under way. */
  static List<Placed> placed(MetaReader r, String journal) {
    List<Placed> out = new ArrayList<>();
    for (JournalPartition jp : r.journalPartitions(journal)) {
      long end =
          r.partition(jp.streamId(), jp.partition()).map(PartitionInfo::highWatermark).orElse(0L);
      out.add(
          new Placed(
              jp.streamId(),
              jp.partition(),
              end,
              r.journalMoveTarget(jp.streamId(), jp.partition()).orElse(null)));
    }
    return out;
  }

  /** One step of the move of {@code p} away from {@code journal}, which this node leads. */
  static CompletableFuture<?> step(
      Metastore metastore,
      Journals server,
      Supplier<Origin> origin,
      Function<String, JournalSealer> sealers,
      String journal,
      Placed p,
      boolean hosted) {
    if (!hosted) {
      if (!server.appliedAllCommitted(journal)) {
        // A new leader whose state lags its log might not have applied the partition's HOST or
        // appends yet: "not hosted" is known only once it applied everything committed.
        return CompletableFuture.completedFuture(null);
      }
      return metastore
          .propose(
              new MoveJournalPartition(
                  origin.get(), p.streamId(), p.partition(), journal, p.moveTarget(), p.indexEnd()))
          .thenAccept(
              a -> {
                if (a.outcome() instanceof Outcome.Rejected rej) {
                  throw new LoamException(
                      Kind.CONFLICT,
                      "the move was refused: "
                          + rej.message()
                          + " journal="
                          + journal
                          + " to="
                          + p.moveTarget());
                }
              });
    }
    SealPoint point =
        server.query(
            journal,
            s ->
                s.sealPoints().stream()
                    .filter(x -> x.streamId() == p.streamId() && x.partition() == p.partition())
                    .findFirst()
                    .orElse(null));
    if (point == null) {
      return CompletableFuture.completedFuture(null); // released meanwhile: the next pass goes on
    }
    if (point.tailBytes() == 0) {
      return server.propose(
          journal, new JournalEntry.Release(p.streamId(), p.partition(), point.sealedOffset()));
    }
    JournalSealer sealer = sealers.apply(journal);
    return sealer == null
        ? CompletableFuture.completedFuture(null)
        : sealer.sealTail(p.streamId(), p.partition());
  }
}
