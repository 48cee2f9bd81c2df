package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitJournalSegment;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.SwapSegment.SegmentEntry;
import java.util.List;

/**
 * The fixtures of the golden file of command tags 51 (a sealed quorum segment's commit) and 52 (a
 * journal placed among nodes advertising an endpoint), still format version 1
 * (metastore-commands.md).
 */
final class MetaGoldenFixturesJournalSeal {
  static final String COMMANDS_V1_JOURNAL_SEAL = "metastore-commands-v1-journalseal.bin";

  private MetaGoldenFixturesJournalSeal() {}

  static List<Command> commandsJournalSeal() {
    return List.of(
        new CommitJournalSegment(
            originA(30_000),
            "quorum-1",
            4L,
            1,
            120,
            250,
            "seg/c1/4/1/120-01J0000000000000000000000A.seg",
            1_780_000_030_000L,
            70_000,
            List.of(
                new SegmentEntry(100, 0, 50_000, 1_780_000_001_000L),
                new SegmentEntry(30, 50_000, 19_000, 1_780_000_002_000L))),
        new PlaceJournal(originB(30_100), "quorum-2", 3, "journal"));
  }
}
