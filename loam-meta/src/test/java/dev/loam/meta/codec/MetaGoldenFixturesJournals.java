package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.meta.command.StreamConfig;
import dev.loam.wal.DurabilityClass;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the quorum-journal placement golden files: command tags 46–47 and outcome tag 31
 * (still format version 1), and snapshot version 13 (metastore-commands.md, metastore-snapshot.md).
 */
final class MetaGoldenFixturesJournals {
  static final String COMMANDS_V1_JOURNALS = "metastore-commands-v1-journals.bin";
  static final String OUTCOMES_V1_JOURNALS = "outcomes-v1-journals.bin";
  static final String SNAPSHOT_V13 = "metastore-snapshot-v13.bin";

  private MetaGoldenFixturesJournals() {}

  static List<Command> commandsJournals() {
    return List.of(
        new PlaceJournal(originA(20_000), "j1", 3),
        new AssignJournalPartition(originB(20_100), 4L, 1));
  }

  static List<Outcome> outcomesJournals() {
    return List.of(
        new Outcome.JournalPlaced("j1", List.of("node-a", "node-b"), false),
        new Outcome.JournalPlaced("j-2", List.of("node-b"), true));
  }

  /**
   * The v1 sequence, then: a quorum stream default/q (id 4) with 2 partitions; journal j1 placed on
   * 2 nodes; both partitions assigned to it.
   */
  static List<Command> snapshotV13Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(
        new CreateStream(
            originA(20_000),
            "default",
            "q",
            new StreamConfig(
                2, DurabilityClass.QUORUM, -1, -1, StreamConfig.CleanupPolicy.DELETE)));
    out.add(new PlaceJournal(originA(20_100), "j1", 2));
    out.add(new AssignJournalPartition(originA(20_200), 4L, 0));
    out.add(new AssignJournalPartition(originB(20_300), 4L, 1));
    return out;
  }
}
