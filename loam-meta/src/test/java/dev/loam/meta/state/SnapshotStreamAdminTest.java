package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.wal.DurabilityClass;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * UpdateStreamConfig and AddPartitions need no new snapshot version: the snapshot stores each
 * stream's configuration and then exactly {@code config.partitions} partitions, so a grown stream
 * is written and restored by the existing layout (metastore-snapshot.md).
 */
class SnapshotStreamAdminTest {
  static final long T = SnapshotV2Test.T;

  static CommitWal commit(String key, int partition, int records) {
    return new CommitWal(
        SnapshotV2Test.o(T),
        key,
        T,
        1000,
        List.of(
            new ChunkCommit(
                1, partition, List.of(new BatchCommit(0, 100, records, T, 7, (short) 0, 0)))));
  }

  @Test
  void aStreamGrownWithoutRetiredObjectsStaysVersion1() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    m.apply(1, new RegisterNode(SnapshotV2Test.o(T), null, 1, null));
    m.apply(2, new CreateStream(SnapshotV2Test.o(T), "default", "s", StreamConfig.standard(1)));
    m.apply(3, commit("wal/a.wal", 0, 3));
    m.apply(4, new AddPartitions(SnapshotV2Test.o(T), "default", "s", 3));
    m.apply(5, commit("wal/b.wal", 2, 1));
    byte[] snap = m.snapshot();
    assertThat(ByteBuffer.wrap(snap).getShort(4)).isEqualTo((short) 1);
    MetaReader v = MetaStateMachine.restore(snap, MetaSettings.defaults()).reader();
    assertThat(v.partition(1, 0)).contains(new PartitionInfo(1, 0, 0, 3));
    assertThat(v.partition(1, 1)).contains(new PartitionInfo(1, 1, 0, 0));
    assertThat(v.partition(1, 2)).contains(new PartitionInfo(1, 2, 0, 1));
  }

  @Test
  void aSnapshotAfterAddPartitionsRestoresTheNewPartitionsWithTheirOffsets() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long i = 0;
    m.apply(++i, new RegisterNode(SnapshotV2Test.o(T), null, 1, null));
    m.apply(
        ++i,
        new CreateStream(
            SnapshotV2Test.o(T),
            "default",
            "s",
            new StreamConfig(
                2, DurabilityClass.EXPRESS, 60_000, -1, StreamConfig.CleanupPolicy.DELETE)));
    m.apply(++i, commit("wal/a.wal", 1, 3));
    assertThat(m.apply(++i, new AddPartitions(SnapshotV2Test.o(T), "default", "s", 5)))
        .isInstanceOf(Outcome.PartitionsAdded.class);
    m.apply(++i, commit("wal/b.wal", 4, 2));
    m.apply(++i, commit("wal/c.wal", 4, 4)); // same producer 7, sequence 0 again: a duplicate
    m.apply(++i, commit("wal/d.wal", 2, 1));
    assertThat(
            m.apply(
                ++i,
                new UpdateStreamConfig(SnapshotV2Test.o(T), "default", "s", null, 1L << 30, null)))
        .isInstanceOf(Outcome.StreamConfigUpdated.class);

    byte[] snap = m.snapshot();
    // Version 2 only because the duplicate's object was retired at once; the grown stream and its
    // updated config need no new section.
    assertThat(ByteBuffer.wrap(snap).getShort(4)).isEqualTo((short) 2);
    MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(r.snapshot()).isEqualTo(snap);

    MetaReader v = r.reader();
    StreamConfig expected =
        new StreamConfig(
            5, DurabilityClass.EXPRESS, 60_000, 1L << 30, StreamConfig.CleanupPolicy.DELETE);
    assertThat(v.stream("default", "s").orElseThrow().config()).isEqualTo(expected);
    assertThat(v.partition(1, 0)).contains(new PartitionInfo(1, 0, 0, 0));
    assertThat(v.partition(1, 1)).contains(new PartitionInfo(1, 1, 0, 3));
    assertThat(v.partition(1, 2)).contains(new PartitionInfo(1, 2, 0, 1));
    assertThat(v.partition(1, 3)).contains(new PartitionInfo(1, 3, 0, 0));
    assertThat(v.partition(1, 4)).contains(new PartitionInfo(1, 4, 0, 2));
    assertThat(v.partition(1, 5)).isEmpty();
    assertThat(v.indexEntries(1, 4, 0, 10))
        .containsExactly(new IndexEntry(0, 2, "wal/b.wal", 0, 100, T));

    // The restored producer state of a new partition sequences like the original: sequence 2
    // follows the batch 0..1, and the same next commit gets the same offsets on both copies.
    CommitWal next =
        new CommitWal(
            SnapshotV2Test.o(T),
            "wal/e.wal",
            T,
            1000,
            List.of(
                new ChunkCommit(1, 4, List.of(new BatchCommit(0, 100, 1, T, 7, (short) 0, 2)))));
    Outcome a = m.apply(++i, next);
    Outcome b = r.apply(i, next);
    assertThat(b).isEqualTo(a);
    assertThat(((Outcome.WalCommitted) b).chunks().get(0).get(0))
        .isEqualTo(new Outcome.BatchResult(Outcome.BatchStatus.APPENDED, 2));
    assertThat(r.snapshot()).isEqualTo(m.snapshot());
  }
}
