package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.LIVE_2;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.RETIRED_0;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.RETIRED_1;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.RetiredObject;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamConfig.CleanupPolicy;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.MetaStateMachine;
import dev.loam.wal.DurabilityClass;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of everything added after the first v1 set (STYLE.md §3): command tags 7..14,
 * outcome tags 7..14 and reject reasons 9..10 (still format version 1), and snapshot versions 2 and
 * 3. Decoded forever; a failure is a compatibility break, never a reason to regenerate.
 */
class MetaGoldenFilesExtTest {

  @Test
  void commandsV1ExtDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.COMMANDS_V1_EXT);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames)
        .extracting(f -> (int) f[1])
        .containsExactly(7, 7, 8, 8, 9, 9, 10, 11, 12, 13, 13, 13, 13, 14);

    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.commandsExt());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.commandsExt().stream().map(CommandCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void streamAdminCommandsAreSpotCheckedLiterally() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFilesWriter.COMMANDS_V1_EXT));
    UpdateStreamConfig all = (UpdateStreamConfig) CommandCodec.decode(frames.get(9));
    assertThat(all.origin().nodeId()).isEqualTo("node-a");
    assertThat(all.namespace()).isEqualTo("analytics");
    assertThat(all.name()).isEqualTo("page-views");
    assertThat(all.retentionMillis()).isEqualTo(604_800_000L);
    assertThat(all.retentionBytes()).isEqualTo(5_368_709_120L);
    assertThat(all.cleanupPolicy()).isEqualTo(CleanupPolicy.COMPACT);
    // The presence byte follows the origin and the two names: bits 1|2|4, then only what is set.
    UpdateStreamConfig onlyPolicy = (UpdateStreamConfig) CommandCodec.decode(frames.get(12));
    assertThat(onlyPolicy.retentionMillis()).isNull();
    assertThat(onlyPolicy.retentionBytes()).isNull();
    assertThat(onlyPolicy.cleanupPolicy()).isEqualTo(CleanupPolicy.DELETE);
    byte[] f = frames.get(12);
    assertThat(f[f.length - 2]).as("presence byte").isEqualTo((byte) 4);
    assertThat(f[f.length - 1]).as("cleanup policy code").isEqualTo((byte) 0);
    AddPartitions add = (AddPartitions) CommandCodec.decode(frames.get(13));
    assertThat(add.partitions()).isEqualTo(10_000);
    assertThat(ByteBuffer.wrap(frames.get(13)).getInt(frames.get(13).length - 4)).isEqualTo(10_000);
  }

  @Test
  void outcomesV1ExtDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.OUTCOMES_V1_EXT);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames)
        .extracting(f -> (int) f[1])
        .containsExactly(1, 1, 7, 7, 8, 9, 10, 11, 12, 13, 14);
    assertThat((int) frames.get(0)[2]).as("FENCED").isEqualTo(9);
    assertThat((int) frames.get(1)[2]).as("OUT_OF_RANGE").isEqualTo(10);

    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.outcomesExt());
    assertThat(((Outcome.PartitionsAdded) decoded.get(10)).previousPartitions()).isEqualTo(3);
    assertThat(((Outcome.ConsumerLeaseGranted) decoded.get(7)).lease().committedOffset())
        .isEqualTo(-1L);
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.outcomesExt().stream().map(OutcomeCodec::encode)))
        .isEqualTo(file);
  }

  static short version(byte[] snap) {
    return ByteBuffer.wrap(snap).getShort(4);
  }

  @Test
  void snapshotV2RestoresRetiredObjectsAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V2);
    assertThat(version(bytes)).isEqualTo((short) 2);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(7L);
    assertThat(r.clockMillis()).isEqualTo(START + 6_000);
    assertThat(r.stream("default", "events").orElseThrow().config())
        .isEqualTo(
            new StreamConfig(2, DurabilityClass.STANDARD, 1_000L, -1L, CleanupPolicy.DELETE));
    assertThat(r.partition(1L, 0)).contains(new PartitionInfo(1L, 0, 4L, 6L));
    assertThat(r.partition(1L, 1)).contains(new PartitionInfo(1L, 1, 0L, 2L));
    assertThat(r.indexEntries(1L, 0, 0L, 10))
        .containsExactly(new IndexEntry(4L, 2, LIVE_2, 0L, 100, START + 1_200));
    assertThat(r.retiredObjects(10)).containsExactly(new RetiredObject(RETIRED_1, START + 5_000));
    assertThat(r.retired(RETIRED_0)).isEmpty(); // deletion confirmed
    assertThat(r.objectRefs(LIVE_2)).isEqualTo(2); // rebuilt on restore
    assertThat(r.objectRefs(RETIRED_1)).isZero();
    assertThat(r.nextProducerId()).isZero();

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(MetaGoldenFilesWriter.state(MetaGoldenFilesWriter.snapshotV2Commands()).snapshot())
        .isEqualTo(bytes);
  }

  @Test
  void snapshotV3RestoresProducerIdsConsumersAndAGrownStream() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V3);
    assertThat(version(bytes)).isEqualTo((short) 3);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(14L);
    assertThat(r.clockMillis()).isEqualTo(START + 8_200);
    assertThat(r.nextProducerId()).isEqualTo(5L);
    assertThat(r.stream("default", "events").orElseThrow().config())
        .isEqualTo(
            new StreamConfig(
                3, DurabilityClass.STANDARD, 1_000L, 1_048_576L, CleanupPolicy.DELETE));
    assertThat(r.partition(1L, 0)).contains(new PartitionInfo(1L, 0, 4L, 6L));
    assertThat(r.partition(1L, 1)).contains(new PartitionInfo(1L, 1, 0L, 2L));
    assertThat(r.partition(1L, 2)).contains(new PartitionInfo(1L, 2, 0L, 3L));
    assertThat(r.partition(1L, 3)).isEmpty();
    assertThat(r.indexEntries(1L, 2, 0L, 10))
        .containsExactly(
            new IndexEntry(0L, 3, "wal/standard/node-a/r3.wal", 0L, 150, START + 7_300));
    assertThat(r.retiredObjects(10)).containsExactly(new RetiredObject(RETIRED_1, START + 5_000));
    assertThat(r.consumerLease(1L, 2, "billing"))
        .contains(new ConsumerLease(1L, 2, "billing", 1L, "host-1", 30_000L, START + 38_100, 1L));
    assertThat(r.consumerLease(1L, 0, "audit"))
        .contains(new ConsumerLease(1L, 0, "audit", 1L, "host-2", 10_000L, START + 18_200, -1L));

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(MetaGoldenFilesWriter.state(MetaGoldenFilesWriter.snapshotV3Commands()).snapshot())
        .isEqualTo(bytes);

    // Producer 3's state on the new partition survived: a retry is a duplicate with the first
    // offset, the next sequence appends after it, and an older epoch is fenced.
    Outcome o =
        m.apply(
            15,
            new CommitWal(
                MetaGoldenFilesWriter.originA(9_000),
                "wal/standard/node-a/r4.wal",
                START + 9_000,
                1_000L,
                List.of(
                    new ChunkCommit(
                        1L,
                        2,
                        List.of(
                            new BatchCommit(0L, 150, 3, START + 7_300, 3L, (short) 1, 0),
                            new BatchCommit(200L, 70, 1, START + 9_000, 3L, (short) 1, 3),
                            new BatchCommit(300L, 70, 1, START + 9_000, 3L, (short) 0, 4))))));
    assertThat(o)
        .isEqualTo(
            new Outcome.WalCommitted(
                false,
                List.of(
                    List.of(
                        new BatchResult(BatchStatus.DUPLICATE, 0L),
                        new BatchResult(BatchStatus.APPENDED, 3L),
                        new BatchResult(BatchStatus.PRODUCER_FENCED, -1L)))));
  }
}
