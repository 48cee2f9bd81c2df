package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.MoveJournalPartition;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.StreamConfig;
import dev.loam.wal.DurabilityClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the golden file of command tag 53 (a quorum partition assigned over a family of
 * journals, without and with a placement hint), still format version 1 (metastore-commands.md).
 */
final class MetaGoldenFixturesJournalSpread {
  static final String COMMANDS_V1_JOURNAL_SPREAD = "metastore-commands-v1-journalspread.bin";
  static final String SNAPSHOT_V14 = "metastore-snapshot-v14.bin";
  static final String COMMANDS_V1_JOURNAL_MOVE = "metastore-commands-v1-journalmove.bin";

  /** Tag 48: a move begun, and one completed at offset 1 200. */
  static List<Command> commandsJournalMove() {
    return List.of(
        new MoveJournalPartition(
            originA(41_000), 4L, 1, "quorum-2", "quorum-3", MoveJournalPartition.BEGIN),
        new MoveJournalPartition(originB(41_100), 4L, 1, "quorum-2", "quorum-3", 1_200));
  }

  private MetaGoldenFixturesJournalSpread() {}

  static List<Command> commandsJournalSpread() {
    return List.of(
        new AssignJournalPartition(
            originA(40_000), 4L, 2, new AssignJournalPartition.Spread("quorum-", 3, "journal")),
        new AssignJournalPartition(
            originB(40_100),
            9L,
            0,
            new AssignJournalPartition.Spread("j.ß", 1, "jp", "eu-west-1c")));
  }

  /**
   * The v1 sequence, then: both nodes advertise a journal endpoint; a quorum stream default/q (id
   * 4) with 2 partitions; partition 0 assigned over the quorum- family with 2 replicas and the hint
   * az-1, which places the family's three journals (6 slots / 2 replicas); partition 1 without a
   * hint (on quorum-2), then its move to quorum-3 begun.
   */
  static List<Command> snapshotV14Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(new SetNodeEndpoint(originA(50_000), "journal", "10.0.0.1:7000"));
    out.add(new SetNodeEndpoint(originB(50_010), "journal", "10.0.0.2:7000"));
    out.add(
        new CreateStream(
            originA(50_100),
            "default",
            "q",
            new StreamConfig(
                2, DurabilityClass.QUORUM, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    out.add(
        new AssignJournalPartition(
            originA(50_200),
            4L,
            0,
            new AssignJournalPartition.Spread("quorum-", 2, "journal", "az-1")));
    out.add(
        new AssignJournalPartition(
            originB(50_300), 4L, 1, new AssignJournalPartition.Spread("quorum-", 2, "journal")));
    out.add(
        new MoveJournalPartition(
            originA(50_400), 4L, 1, "quorum-2", "quorum-3", MoveJournalPartition.BEGIN));
    return out;
  }
}
