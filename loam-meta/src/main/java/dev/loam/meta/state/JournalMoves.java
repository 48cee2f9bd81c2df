package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Moves of quorum partitions between journals (docs/design/quorum.md "Moving a partition between
 * journals", command tag 48): which partitions are moving and where, and the fenced flip of the
 * assignment. Reads and writes its snapshot section (version 14 on, after the hints).
 */
final class JournalMoves {
  private final Catalog catalog;
  private final JournalTable table;

  /** (stream, partition) → the journal it is moving to, while a move is under way. */
  private final TreeMap<Long, TreeMap<Integer, String>> moves = new TreeMap<>();

  JournalMoves(Catalog catalog, JournalTable table) {
    this.catalog = catalog;
    this.table = table;
  }

  boolean any() {
    return !moves.isEmpty();
  }

  void dropStream(long streamId) {
    moves.remove(streamId);
  }

  /**
   * Begins or completes a move of a partition between journals (see {@link MoveJournalPartition}).
   */
  Outcome move(MoveJournalPartition c) {
    String ids = " stream=" + c.streamId() + " partition=" + c.partition();
    Catalog.StreamState s = catalog.stream(c.streamId());
    if (s == null || c.partition() < 0 || c.partition() >= s.partitions.length) {
      return rejected(RejectReason.NOT_FOUND, "no such stream partition" + ids);
    }
    List<String> target = c.toJournal() == null ? null : table.replicas(c.toJournal()).orElse(null);
    if (target == null || c.toJournal().equals(c.fromJournal())) {
      return rejected(
          RejectReason.INVALID,
          "a move needs another placed journal as its target"
              + ids
              + " from="
              + c.fromJournal()
              + " to="
              + c.toJournal());
    }
    if (c.sealedEnd() < MoveJournalPartition.BEGIN) {
      return rejected(RejectReason.INVALID, "sealedEnd must be -1 or >= 0" + ids);
    }
    String assigned = table.journalOf(c.streamId(), c.partition()).orElse(null);
    String moving = moveTarget(c.streamId(), c.partition()).orElse(null);
    if (c.toJournal().equals(assigned) && moving == null) {
      return new Outcome.JournalPlaced(c.toJournal(), target, true); // moved already
    }
    if (assigned == null || !assigned.equals(c.fromJournal())) {
      return rejected(
          RejectReason.CONFLICT,
          "the partition is not on the move's source journal" + ids + " assigned=" + assigned);
    }
    if (c.sealedEnd() == MoveJournalPartition.BEGIN) {
      if (moving != null && !moving.equals(c.toJournal())) {
        return rejected(
            RejectReason.CONFLICT, "the partition is moving elsewhere" + ids + " to=" + moving);
      }
      moves.computeIfAbsent(c.streamId(), k -> new TreeMap<>()).put(c.partition(), c.toJournal());
      return new Outcome.JournalPlaced(c.toJournal(), target, moving != null);
    }
    if (!c.toJournal().equals(moving)) {
      return rejected(
          RejectReason.CONFLICT,
          "no move of the partition to " + c.toJournal() + ids + " to=" + moving);
    }
    if (!table.replicas(assigned).orElse(List.of()).contains(c.origin().nodeId())) {
      return rejected(
          RejectReason.NOT_OWNER,
          "only a replica of the source journal completes a move"
              + ids
              + " node="
              + c.origin().nodeId());
    }
    long indexEnd = s.partitions[c.partition()].highWatermark;
    if (indexEnd != c.sealedEnd()) {
      return rejected(
          RejectReason.CONFLICT,
          "the partition's offset index does not end at the sealed end"
              + ids
              + " sealedEnd="
              + c.sealedEnd()
              + " indexEnd="
              + indexEnd);
    }
    table.reassign(c.streamId(), c.partition(), c.toJournal());
    TreeMap<Integer, String> m = moves.get(c.streamId());
    m.remove(c.partition());
    if (m.isEmpty()) {
      moves.remove(c.streamId());
    }
    return new Outcome.JournalPlaced(c.toJournal(), target, false);
  }

  /** The journal a partition is moving to, while a move is under way. */
  Optional<String> moveTarget(long streamId, int partition) {
    TreeMap<Integer, String> m = moves.get(streamId);
    return Optional.ofNullable(m == null ? null : m.get(partition));
  }

  /** The section: moves sorted by (stream, partition), each of an assigned partition. */
  void write(BinaryWriter w) {
    JournalHints.write(w, moves);
  }

  void read(BinaryReader r) {
    int m = r.count("journalMoves.count", 14);
    long prevStream = -1;
    int prevPartition = -1;
    for (int i = 0; i < m; i++) {
      long stream = r.i64("journalMove.streamId");
      int partition = r.i32("journalMove.partition");
      String to = r.string("journalMove.toJournal");
      if (stream < prevStream || (stream == prevStream && partition <= prevPartition)) {
        throw r.corrupt(
            "journalMove", "unsorted or duplicate stream=" + stream + " partition=" + partition);
      }
      String from = table.journalOf(stream, partition).orElse(null);
      if (from == null || table.replicas(to).isEmpty() || to.equals(from)) {
        throw r.corrupt(
            "journalMove",
            "a move of an unassigned partition or to no other journal stream="
                + stream
                + " partition="
                + partition
                + " to="
                + to);
      }
      prevStream = stream;
      prevPartition = partition;
      moves.computeIfAbsent(stream, x -> new TreeMap<>()).put(partition, to);
    }
  }
}
