package dev.loam.meta.codec;

import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.SwapSegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The encodings of quorum journals: placement, command tags 46–47, 52 and 53, moving a partition
 * between journals, tag 48, a sealed segment's commit, tag 51, and outcome tag 31,
 * docs/formats/metastore-commands.md. {@link CommandCodec} and {@link OutcomeCodec} frame them
 * (version, tag, origin); this class writes and reads the bodies.
 */
final class JournalPlacementCodec {
  static final int TAG_PLACE_JOURNAL = 46;
  static final int TAG_ASSIGN_JOURNAL_PARTITION = 47;
  static final int TAG_MOVE_JOURNAL_PARTITION = 48;
  static final int TAG_COMMIT_JOURNAL_SEGMENT = 51;
  static final int TAG_PLACE_JOURNAL_WITH_ENDPOINT = 52;
  static final int TAG_ASSIGN_JOURNAL_PARTITION_SPREAD = 53;

  /** Encoded SegmentEntry size: fixed. */
  private static final int SEGMENT_ENTRY_BYTES = 4 + 8 + 4 + 8;

  static final int TAG_JOURNAL_PLACED = 31;

  /** The most replicas a journal has. */
  static final int MAX_REPLICAS = 9;

  private JournalPlacementCodec() {}

  static boolean isPlacement(Command c) {
    return c instanceof PlaceJournal
        || c instanceof AssignJournalPartition
        || c instanceof CommitJournalSegment
        || c instanceof MoveJournalPartition;
  }

  static int tag(Command c) {
    if (c instanceof PlaceJournal p) {
      return p.requiredEndpoint() == null ? TAG_PLACE_JOURNAL : TAG_PLACE_JOURNAL_WITH_ENDPOINT;
    }
    if (c instanceof MoveJournalPartition) {
      return TAG_MOVE_JOURNAL_PARTITION;
    }
    if (c instanceof AssignJournalPartition a) {
      return a.spread() == null
          ? TAG_ASSIGN_JOURNAL_PARTITION
          : TAG_ASSIGN_JOURNAL_PARTITION_SPREAD;
    }
    return TAG_COMMIT_JOURNAL_SEGMENT;
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
      if (c.requiredEndpoint() != null) {
        w.string(c.requiredEndpoint());
      }
    } else if (command instanceof MoveJournalPartition c) {
      if (c.sealedEnd() < MoveJournalPartition.BEGIN) {
        throw new dev.loam.error.LoamException(
            dev.loam.error.LoamException.Kind.INVALID,
            "a move's sealedEnd is -1 (begin) or >= 0 sealedEnd=" + c.sealedEnd());
      }
      w.i64(c.streamId()).i32(c.partition()).string(c.fromJournal()).string(c.toJournal());
      w.i64(c.sealedEnd());
    } else if (command instanceof AssignJournalPartition c) {
      w.i64(c.streamId()).i32(c.partition());
      if (c.spread() != null) {
        AssignJournalPartition.Spread sp = c.spread();
        if (sp.replicas() < 1 || sp.replicas() > MAX_REPLICAS) {
          throw new dev.loam.error.LoamException(
              dev.loam.error.LoamException.Kind.INVALID,
              "a journal has 1.." + MAX_REPLICAS + " replicas replicas=" + sp.replicas());
        }
        w.string(sp.namePrefix()).u8(sp.replicas()).string(sp.requiredEndpoint());
        w.nullableString(sp.placementHint());
      }
    } else {
      CommitJournalSegment c = (CommitJournalSegment) command;
      w.string(c.journal()).i64(c.streamId()).i32(c.partition());
      w.i64(c.fromOffset()).i64(c.toOffset());
      w.string(c.segmentKey()).i64(c.segmentTimeMillis()).i64(c.segmentSize());
      w.i32(c.entries().size());
      for (SwapSegment.SegmentEntry e : c.entries()) {
        w.i32(e.recordCount()).i64(e.byteOffset()).i32(e.byteLength()).i64(e.maxTimestamp());
      }
    }
  }

  static Command readBody(BinaryReader r, int tag, Origin o) {
    if (tag == TAG_PLACE_JOURNAL || tag == TAG_PLACE_JOURNAL_WITH_ENDPOINT) {
      String journal = r.string("placeJournal.journal");
      int replicas = r.u8("placeJournal.replicas");
      if (replicas < 1 || replicas > MAX_REPLICAS) {
        throw r.corrupt(
            "placeJournal.replicas", "out of range 1.." + MAX_REPLICAS + " replicas=" + replicas);
      }
      if (tag == TAG_PLACE_JOURNAL) {
        return new PlaceJournal(o, journal, replicas);
      }
      return new PlaceJournal(o, journal, replicas, r.string("placeJournal.requiredEndpoint"));
    }
    if (tag == TAG_COMMIT_JOURNAL_SEGMENT) {
      return readCommit(r, o);
    }
    if (tag == TAG_MOVE_JOURNAL_PARTITION) {
      long stream = r.i64("moveJournalPartition.streamId");
      int partition = r.i32("moveJournalPartition.partition");
      String from = r.string("moveJournalPartition.fromJournal");
      String to = r.string("moveJournalPartition.toJournal");
      long end = r.i64("moveJournalPartition.sealedEnd");
      if (end < MoveJournalPartition.BEGIN) {
        throw r.corrupt("moveJournalPartition.sealedEnd", "below -1 sealedEnd=" + end);
      }
      return new MoveJournalPartition(o, stream, partition, from, to, end);
    }
    long stream = r.i64("assignJournalPartition.streamId");
    int partition = r.i32("assignJournalPartition.partition");
    if (tag == TAG_ASSIGN_JOURNAL_PARTITION) {
      return new AssignJournalPartition(o, stream, partition);
    }
    String prefix = r.string("assignJournalPartition.namePrefix");
    int replicas = r.u8("assignJournalPartition.replicas");
    if (replicas < 1 || replicas > MAX_REPLICAS) {
      throw r.corrupt(
          "assignJournalPartition.replicas",
          "out of range 1.." + MAX_REPLICAS + " replicas=" + replicas);
    }
    String endpoint = r.string("assignJournalPartition.requiredEndpoint");
    String hint = r.nullableString("assignJournalPartition.placementHint");
    return new AssignJournalPartition(
        o, stream, partition, new AssignJournalPartition.Spread(prefix, replicas, endpoint, hint));
  }

  private static CommitJournalSegment readCommit(BinaryReader r, Origin o) {
    String journal = r.string("commitJournalSegment.journal");
    long stream = r.i64("commitJournalSegment.streamId");
    int partition = r.i32("commitJournalSegment.partition");
    long from = r.i64("commitJournalSegment.fromOffset");
    long to = r.i64("commitJournalSegment.toOffset");
    String key = r.string("commitJournalSegment.segmentKey");
    long time = r.i64("commitJournalSegment.segmentTimeMillis");
    long size = r.i64("commitJournalSegment.segmentSize");
    int n = r.count("commitJournalSegment.entries.count", SEGMENT_ENTRY_BYTES);
    List<SwapSegment.SegmentEntry> entries = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      entries.add(
          new SwapSegment.SegmentEntry(
              r.i32("commitJournalSegment.entry.recordCount"),
              r.i64("commitJournalSegment.entry.byteOffset"),
              r.i32("commitJournalSegment.entry.byteLength"),
              r.i64("commitJournalSegment.entry.maxTimestamp")));
    }
    return new CommitJournalSegment(
        o, journal, stream, partition, from, to, key, time, size, entries);
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
