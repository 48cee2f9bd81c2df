package dev.loam.core.quorum;

import dev.loam.api.Durability;
import dev.loam.api.JournalMove;
import dev.loam.core.NodeContext;
import dev.loam.core.Rejections;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.StreamInfo;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The operator's way to move a quorum partition to another journal (docs/design/quorum.md "Moving a
 * partition between journals"): checks the request against this node's view of the placement, so
 * each mistake gets its own error, then proposes the move's first step ({@code
 * MoveJournalPartition} with {@link MoveJournalPartition#BEGIN}). The metastore checks the same
 * again when it applies the command, so a race with another move or a flip is refused there; the
 * rest of the move is the source journal's leader's (seal, release, flip). Any node may begin a
 * move: it needs no journal port.
 */
public final class QuorumMoves {
  private final NodeContext ctx;

  public QuorumMoves(NodeContext ctx) {
    this.ctx = ctx;
  }

  /**
   * Begins moving {@code partition} of stream {@code s} to journal {@code toJournal}; completes
   * once the metastore marked the move. Fails, as a failed future, INVALID when the stream is not a
   * quorum stream, the partition is out of range, no target is named or the target is the
   * partition's journal already; NOT_FOUND when no journal of that name is placed; CONFLICT when a
   * move of the partition is under way already (to any journal); UNAVAILABLE when the partition has
   * no journal yet; and as the metastore call fails (UNAVAILABLE, OUTCOME_UNKNOWN: a retry after an
   * unknown outcome that did begin the move answers CONFLICT naming it).
   */
  public CompletableFuture<JournalMove> begin(
      StreamInfo s, String namespace, String stream, int partition, String toJournal) {
    String subject = "stream=" + namespace + "/" + stream + " partition=" + partition;
    String from;
    try {
      if (Durability.fromWireName(s.config().durabilityClass().wireName()) != Durability.QUORUM) {
        throw new LoamException(
            Kind.INVALID,
            "only a quorum stream's partitions live on journals "
                + subject
                + " class="
                + s.config().durabilityClass().wireName());
      }
      if (partition < 0 || partition >= s.config().partitions()) {
        throw new LoamException(
            Kind.INVALID,
            "partition out of range " + subject + " partitions=" + s.config().partitions());
      }
      if (toJournal == null || toJournal.isEmpty()) {
        throw new LoamException(Kind.INVALID, "a move names its target journal " + subject);
      }
      from =
          ctx.meta()
              .read(
                  r -> {
                    Optional<String> assigned = r.journalOf(s.id(), partition);
                    if (assigned.isEmpty()) {
                      throw new LoamException(
                          Kind.UNAVAILABLE, "the partition has no journal yet " + subject);
                    }
                    Optional<String> moving = r.journalMoveTarget(s.id(), partition);
                    if (moving.isPresent()) {
                      throw new LoamException(
                          Kind.CONFLICT,
                          "a move of the partition is under way "
                              + subject
                              + " from="
                              + assigned.get()
                              + " to="
                              + moving.get());
                    }
                    if (r.journalReplicas(toJournal).isEmpty()) {
                      throw new LoamException(
                          Kind.NOT_FOUND,
                          "no such journal journal="
                              + toJournal
                              + " "
                              + subject
                              + " journals="
                              + r.journals().keySet());
                    }
                    if (assigned.get().equals(toJournal)) {
                      throw new LoamException(
                          Kind.INVALID,
                          "the partition is on the target journal already "
                              + subject
                              + " journal="
                              + toJournal);
                    }
                    return assigned.get();
                  });
    } catch (LoamException e) {
      return CompletableFuture.failedFuture(e);
    }
    return ctx.meta()
        .propose(
            new MoveJournalPartition(
                ctx.origin(), s.id(), partition, from, toJournal, MoveJournalPartition.BEGIN))
        .thenApply(
            a -> {
              if (a.outcome() instanceof Outcome.Rejected r) {
                throw Rejections.of(r, subject);
              }
              Outcome.JournalPlaced placed = (Outcome.JournalPlaced) a.outcome();
              if (placed.alreadyPlaced()) {
                // Another begin of the same move applied first (or this one's earlier attempt).
                throw new LoamException(
                    Kind.CONFLICT,
                    "a move of the partition is under way "
                        + subject
                        + " from="
                        + from
                        + " to="
                        + toJournal);
              }
              return new JournalMove(
                  namespace, stream, partition, from, toJournal, List.copyOf(placed.replicas()));
            });
  }
}
