package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import java.util.List;

/**
 * The fixtures of the golden file of command tag 53 (a quorum partition assigned over a family of
 * journals), still format version 1 (metastore-commands.md).
 */
final class MetaGoldenFixturesJournalSpread {
  static final String COMMANDS_V1_JOURNAL_SPREAD = "metastore-commands-v1-journalspread.bin";

  private MetaGoldenFixturesJournalSpread() {}

  static List<Command> commandsJournalSpread() {
    return List.of(
        new AssignJournalPartition(
            originA(40_000), 4L, 2, new AssignJournalPartition.Spread("quorum-", 3, "journal")),
        new AssignJournalPartition(
            originB(40_100), 9L, 0, new AssignJournalPartition.Spread("j.ß", 1, "jp")));
  }
}
