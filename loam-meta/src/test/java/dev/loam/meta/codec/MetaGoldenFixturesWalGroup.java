package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.OBJECT_1;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.commit1;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;

import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import java.util.List;

/**
 * The fixtures of the grouped commits' golden files: command tag 35 and outcome tag 25
 * (metastore-commands.md).
 */
final class MetaGoldenFixturesWalGroup {
  static final String COMMANDS_V1_WAL_GROUP = "metastore-commands-v1-walgroup.bin";
  static final String OUTCOMES_V1_WAL_GROUP = "outcomes-v1-walgroup.bin";

  static final String OBJECT_3 = "wal/express/node-a/01J0GXQ4G6NZ1X2P5Q7R8T0V1W.wal";
  static final String OBJECT_4 = "wal/express/node-a/01J0GXQ5H7P02Y3Q6R8S9V1W2X.wal";

  private MetaGoldenFixturesWalGroup() {}

  /** Tag 35 with one member, and with three (an empty chunk list in the middle). */
  static List<Command> commandsWalGroup() {
    Origin a = originA(7_000);
    CommitWal empty = new CommitWal(a, OBJECT_3, START + 6_600, 0L, List.of());
    CommitWal last =
        new CommitWal(
            a,
            OBJECT_4,
            START + 6_700,
            500L,
            List.of(
                new ChunkCommit(
                    1L,
                    2,
                    List.of(new BatchCommit(0L, 200, 5, START + 6_650, 8L, (short) 2, 10)))));
    return List.of(
        new CommitWalGroup(a, List.of(commit1(a))),
        new CommitWalGroup(a, List.of(commit1(a), empty, last)));
  }

  /** Tag 25: a committed, a deduplicated and a refused member; and no member at all. */
  static List<Outcome> outcomesWalGroup() {
    return List.of(
        new Outcome.WalGroupCommitted(
            List.of(
                new Outcome.WalCommitted(
                    false,
                    List.of(
                        List.of(
                            new BatchResult(BatchStatus.APPENDED, 0L),
                            new BatchResult(BatchStatus.DUPLICATE, 3L)),
                        List.of(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1L)))),
                new Outcome.WalCommitted(
                    true, List.of(List.of(new BatchResult(BatchStatus.APPENDED, 42L)))),
                new Outcome.Rejected(
                    RejectReason.STALE_COMMIT,
                    "commit is older than the window object=" + OBJECT_1))),
        new Outcome.WalGroupCommitted(List.of()));
  }
}
