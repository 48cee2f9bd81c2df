package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originA;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.originB;

import dev.loam.meta.command.AcquireWriterLease;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.meta.command.CommitWalGroup;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.WriterLease;
import java.util.ArrayList;
import java.util.List;

/**
 * The fixtures of the fenced appends' golden files: command tags 41–43, outcome tag 28 and the
 * fenced batch statuses 6–9, and snapshot version 11 (metastore-commands.md,
 * metastore-snapshot.md).
 */
final class MetaGoldenFixturesWriters {
  static final String COMMANDS_V1_WRITERS = "metastore-commands-v1-writers.bin";
  static final String OUTCOMES_V1_WRITERS = "outcomes-v1-writers.bin";
  static final String SNAPSHOT_V11 = "metastore-snapshot-v11.bin";

  static final String SOURCE = "changelog-2-0";

  private MetaGoldenFixturesWriters() {}

  /** A fenced batch of {@code records} records at {@code byteOffset} covering {@code [f, t]}. */
  static BatchCommit fenced(long byteOffset, int records, long epoch, long f, long t) {
    return new BatchCommit(
        byteOffset, 100, records, START + 1, -1, (short) -1, -1, new Fence(SOURCE, epoch, f, t));
  }

  /** A fenced commit of one object: a fenced batch, then a plain one, on stream 1 partition 0. */
  static CommitWal fencedCommit(Origin o, String key, long epoch) {
    return new CommitWal(
        o,
        key,
        o.stampMillis() - 5,
        300,
        List.of(
            new ChunkCommit(
                1L,
                0,
                List.of(
                    fenced(0, 2, epoch, 0, 3),
                    new BatchCommit(100, 100, 1, START + 2, -1, (short) -1, -1)))));
  }

  /** Tag 41, tag 42, and tag 43 with a fenced and a plain member. */
  static List<Command> commandsWriters() {
    Origin a = new Origin("node-a", EPOCH_A, 1_780_000_000_988L);
    Origin b = new Origin("nœud-ß", 9L, -5L);
    CommitWal plain =
        new CommitWal(
            b,
            "wal/standard/n/p.wal",
            7L,
            100,
            List.of(
                new ChunkCommit(
                    4L, 1, List.of(new BatchCommit(0, 100, 1, 3L, 12L, (short) 2, 40)))));
    return List.of(
        new AcquireWriterLease(a, 1L, 0, SOURCE, "worker-1", 10_000L),
        fencedCommit(a, "wal/standard/node-a/f1.wal", 3L),
        new CommitWalGroup(b, List.of(fencedCommit(b, "wal/standard/n/f2.wal", 4L), plain)));
  }

  static final WriterLease LEASE =
      new WriterLease(1L, 0, SOURCE, 3L, "worker-1", 10_000L, 1_780_000_010_988L, 41L);

  /** Tag 28, and tag 6 with each fenced status. */
  static List<Outcome> outcomesWriters() {
    return List.of(
        new Outcome.WriterLeaseGranted(LEASE),
        new Outcome.WalCommitted(
            false,
            List.of(
                List.of(
                    new BatchResult(BatchStatus.APPENDED, 12L),
                    new BatchResult(BatchStatus.ALREADY_APPENDED, -1L),
                    new BatchResult(BatchStatus.WRITER_FENCED, -1L),
                    new BatchResult(BatchStatus.SOURCE_GAP, -1L),
                    new BatchResult(BatchStatus.SOURCE_OVERLAP, -1L)))));
  }

  /**
   * The v1 sequence (streams 1 default/orders with 3 partitions, 2 analytics/clicks with 2, 3
   * deleted), then: worker-1 takes the writer lease of source changelog-2-0 on stream 1 partition 0
   * (epoch 1); a fenced commit covering source positions 0..3 (appended) and a plain batch; its
   * retry as another object (the fenced batch ALREADY_APPENDED, the plain one appended again);
   * worker-2 takes the lease of source other on partition 1.
   */
  static List<Command> snapshotV11Commands() {
    List<Command> out = new ArrayList<>(MetaGoldenFilesWriter.snapshotCommands());
    out.add(new AcquireWriterLease(originA(10_000), 1L, 0, SOURCE, "worker-1", 60_000L));
    out.add(fencedCommit(originA(10_100), "wal/standard/node-a/f1.wal", 1L));
    out.add(fencedCommit(originA(10_200), "wal/standard/node-a/f2.wal", 1L));
    out.add(new AcquireWriterLease(originB(10_300), 1L, 1, "other", "worker-2", 30_000L));
    return out;
  }
}
