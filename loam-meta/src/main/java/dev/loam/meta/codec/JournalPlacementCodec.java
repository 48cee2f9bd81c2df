package dev.loam.meta.codec;

import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PlaceJournal;
import java.util.ArrayList;
import java.util.List;

/**
 * The encodings of quorum-journal placement: commands tags 46–47 (48 is reserved for moving a
 * partition between journals) and outcome tag 31, docs/formats/metastore-commands.md. {@link
 * CommandCodec} and {@link OutcomeCodec} frame them (version, tag, origin); this class writes and
 * reads the bodies.
 */
final class JournalPlacementCodec {
  static final int TAG_PLACE_JOURNAL = 46;
  static final int TAG_ASSIGN_JOURNAL_PARTITION = 47;

  static final int TAG_JOURNAL_PLACED = 31;

  /** The most replicas a journal has. */
  static final int MAX_REPLICAS = 9;

  private JournalPlacementCodec() {}

  static boolean isPlacement(Command c) {
    return c instanceof PlaceJournal || c instanceof AssignJournalPartition;
  }

  static int tag(Command c) {
    return c instanceof PlaceJournal ? TAG_PLACE_JOURNAL : TAG_ASSIGN_JOURNAL_PARTITION;
  }

  /** The body of a placement command, after its origin. */
  static void writeBody(BinaryWriter w, Command command) {
    if (command instanceof PlaceJournal c) {
      if (c.replicas() < 1 || c.replicas() > MAX_REPLICAS) {
        throw new dev.loam.error.LoamException(
            dev.loam.error.LoamException.Kind.INVALID,
            "a journal has 1.." + MAX_REPLICAS + " replicas replicas=" + c.replicas());
      }
      w.string(c.journal()).u8(c.replicas());
    } else {
      AssignJournalPartition c = (AssignJournalPartition) command;
      w.i64(c.streamId()).i32(c.partition());
    }
  }

  static Command readBody(BinaryReader r, int tag, Origin o) {
    if (tag == TAG_PLACE_JOURNAL) {
      String journal = r.string("placeJournal.journal");
      return new PlaceJournal(o, journal, r.u8("placeJournal.replicas"));
    }
    long stream = r.i64("assignJournalPartition.streamId");
    return new AssignJournalPartition(o, stream, r.i32("assignJournalPartition.partition"));
  }

  static void write(BinaryWriter w, Outcome.JournalPlaced o) {
    w.u8(TAG_JOURNAL_PLACED).string(o.journal()).u8(o.replicas().size());
    for (String id : o.replicas()) {
      w.string(id);
    }
    w.bool(o.alreadyPlaced());
  }

  static Outcome.JournalPlaced read(BinaryReader r) {
    String journal = r.string("journalPlaced.journal");
    int n = r.u8("journalPlaced.replicas.count");
    if (n < 1 || n > MAX_REPLICAS) {
      throw r.corrupt("journalPlaced.replicas.count", "not 1.." + MAX_REPLICAS + " count=" + n);
    }
    List<String> replicas = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      replicas.add(r.string("journalPlaced.replica"));
    }
    return new Outcome.JournalPlaced(journal, replicas, r.bool("journalPlaced.alreadyPlaced"));
  }
}
