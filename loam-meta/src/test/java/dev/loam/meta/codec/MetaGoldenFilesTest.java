package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_B;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.OBJECT_1;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.OBJECT_2;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamConfig.CleanupPolicy;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.state.MetaStateMachine;
import dev.loam.wal.DurabilityClass;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Decodes the checked-in metastore golden files (STYLE.md §3); these must keep passing for as long
 * as v1 exists. A failure here is a compatibility break, never a reason to regenerate the files.
 * Each test also re-encodes and expects the stored bytes: the formats are deterministic.
 */
class MetaGoldenFilesTest {

  static byte[] golden(String name) throws IOException {
    try (InputStream in = MetaGoldenFilesTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void commandsV1DecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.COMMANDS_V1);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);

    // Version byte and tag per the spec's table, independent of the codec's constants.
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(1, 1, 2, 3, 4, 4, 4, 5, 6);

    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.commands());

    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.commands().stream().map(CommandCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void commitWalV1CarriesTwoChunksAndProducerFields() throws IOException {
    // Spot checks written out literally, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(golden(MetaGoldenFilesWriter.COMMANDS_V1));
    CommitWal c = (CommitWal) CommandCodec.decode(frames.get(frames.size() - 1));
    assertThat(c.origin().nodeId()).isEqualTo("node-a");
    assertThat(c.origin().nodeEpoch()).isEqualTo(1_779_999_000_000L);
    assertThat(c.objectKey()).isEqualTo("wal/quorum/node-a/01J0GXQ2E4KX9V0M3N5P6R8S9T.wal");
    assertThat(c.objectTimeMillis()).isEqualTo(1_780_000_000_000L);
    assertThat(c.objectSize()).isEqualTo(4_096L);
    assertThat(c.chunks())
        .containsExactly(
            new ChunkCommit(
                42L,
                3,
                List.of(
                    new BatchCommit(
                        64L, 1_000, 10, 1_779_999_999_001L, 9_000_000_001L, (short) 5, 120),
                    new BatchCommit(
                        1_064L, 500, 4, 1_779_999_999_002L, 9_000_000_001L, (short) 5, 130))),
            new ChunkCommit(
                43L,
                0,
                List.of(
                    new BatchCommit(2_048L, 2_000, 1, 1_779_999_999_003L, -1L, (short) -1, -1))));

    CreateStream create = (CreateStream) CommandCodec.decode(frames.get(4));
    assertThat(create.config())
        .isEqualTo(
            new StreamConfig(
                12, DurabilityClass.QUORUM, 86_400_000L, 5_368_709_120L, CleanupPolicy.COMPACT));
  }

  @Test
  void outcomesV1DecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.OUTCOMES_V1);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);

    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames)
        .extracting(f -> (int) f[1])
        .containsExactly(1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4, 5, 6, 6);
    // Reason codes 1..8 in spec order (metastore-commands.md), pinned byte by byte.
    for (int i = 0; i < 8; i++) {
      assertThat((int) frames.get(i)[2]).as("reason code of frame %d", i).isEqualTo(i + 1);
    }

    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.outcomes());
    Outcome.WalCommitted w = (Outcome.WalCommitted) decoded.get(13);
    assertThat(w.chunks().stream().flatMap(List::stream).map(BatchResult::status))
        .containsExactly(
            BatchStatus.APPENDED,
            BatchStatus.DUPLICATE,
            BatchStatus.OUT_OF_ORDER_SEQUENCE,
            BatchStatus.PRODUCER_FENCED,
            BatchStatus.UNKNOWN_PARTITION);
    // (The fenced appends' statuses, codes 6–9, are pinned by MetaGoldenFilesWritersTest.)

    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.outcomes().stream().map(OutcomeCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void snapshotV1RestoresTheExpectedState() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V1);
    ByteBuffer header = ByteBuffer.wrap(bytes);
    byte[] magic = new byte[4];
    header.get(magic);
    assertThat(new String(magic, StandardCharsets.US_ASCII)).isEqualTo("LMSS");
    assertThat(header.getShort()).as("version").isEqualTo((short) 1);
    assertThat(header.getShort()).as("flags").isEqualTo((short) 0);

    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(9L);
    assertThat(r.clockMillis()).isEqualTo(START + 8_000);

    assertThat(r.nodes())
        .containsExactly(
            new NodeInfo("node-a", EPOCH_A, "10.0.0.1:9092", 4, "az-1"),
            new NodeInfo("node-b", EPOCH_B, "10.0.0.2:9092", 2, null));
    assertThat(r.namespaces()).containsExactly("analytics", "default");

    StreamInfo orders =
        new StreamInfo(
            1L,
            "default",
            "orders",
            new StreamConfig(
                3, DurabilityClass.EXPRESS, 604_800_000L, 1_073_741_824L, CleanupPolicy.DELETE));
    StreamInfo clicks =
        new StreamInfo(
            2L,
            "analytics",
            "clicks",
            new StreamConfig(2, DurabilityClass.QUORUM, -1L, 10_000_000L, CleanupPolicy.COMPACT));
    assertThat(r.streams("default")).containsExactly(orders);
    assertThat(r.streams("analytics")).containsExactly(clicks);
    assertThat(r.streamById(1L)).contains(orders);
    assertThat(r.streamById(2L)).contains(clicks);
    assertThat(r.streamById(3L)).isEmpty(); // created and deleted
    assertThat(r.stream("analytics", "scratch")).isEmpty();

    assertThat(r.partition(1L, 0)).contains(new PartitionInfo(1L, 0, 0L, 6L));
    assertThat(r.partition(1L, 1)).contains(new PartitionInfo(1L, 1, 0L, 0L));
    assertThat(r.partition(1L, 2)).contains(new PartitionInfo(1L, 2, 0L, 3L));
    assertThat(r.partition(1L, 3)).isEmpty();
    assertThat(r.partition(2L, 0)).contains(new PartitionInfo(2L, 0, 0L, 0L));
    assertThat(r.partition(2L, 1)).contains(new PartitionInfo(2L, 1, 0L, 4L));
    assertThat(r.partition(3L, 0)).isEmpty();

    IndexEntry first = new IndexEntry(0L, 5, OBJECT_1, 0L, 180, START + 6_200);
    IndexEntry second = new IndexEntry(5L, 1, OBJECT_2, 0L, 90, START + 7_100);
    assertThat(r.indexEntries(1L, 0, 0L, 100)).containsExactly(first, second);
    assertThat(r.indexEntries(1L, 0, 5L, 100)).containsExactly(second);
    assertThat(r.entryForTimestamp(1L, 0, START + 6_500)).contains(second);
    assertThat(r.indexEntries(1L, 1, 0L, 100)).isEmpty();
    assertThat(r.indexEntries(1L, 2, 0L, 100))
        .containsExactly(
            new IndexEntry(0L, 2, OBJECT_2, 500L, 70, START + 7_200),
            new IndexEntry(2L, 1, OBJECT_2, 700L, 61, START + 7_300));
    assertThat(r.indexEntries(2L, 1, 0L, 100))
        .containsExactly(new IndexEntry(0L, 4, OBJECT_1, 300L, 120, START + 6_300));
  }

  @Test
  void snapshotV1ReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V1);
    assertThat(MetaStateMachine.restore(bytes, MetaSettings.defaults()).snapshot())
        .isEqualTo(bytes);
    // Replaying the fixture today produces the same bytes.
    assertThat(MetaGoldenFilesWriter.snapshotState().snapshot()).isEqualTo(bytes);
  }

  @Test
  void snapshotV1DeduplicatesRetriedCommitsWithTheFirstOffsets() throws IOException {
    MetaStateMachine m =
        MetaStateMachine.restore(
            golden(MetaGoldenFilesWriter.SNAPSHOT_V1), MetaSettings.defaults());
    Outcome retry1 =
        m.apply(10, MetaGoldenFilesWriter.commit1(MetaGoldenFilesWriter.originA(9_000)));
    assertThat(retry1)
        .isEqualTo(
            new Outcome.WalCommitted(
                true,
                List.of(
                    List.of(
                        new BatchResult(BatchStatus.APPENDED, 0L),
                        new BatchResult(BatchStatus.APPENDED, 3L)),
                    List.of(new BatchResult(BatchStatus.APPENDED, 0L)))));

    // The second object's record, retried from another node, keeps its mixed first outcome.
    CommitWal second = (CommitWal) MetaGoldenFilesWriter.snapshotCommands().get(8);
    Outcome retry2 =
        m.apply(
            11,
            new CommitWal(
                MetaGoldenFilesWriter.originA(9_500),
                second.objectKey(),
                second.objectTimeMillis(),
                second.objectSize(),
                second.chunks()));
    assertThat(retry2)
        .isEqualTo(
            new Outcome.WalCommitted(
                true,
                List.of(
                    List.of(
                        new BatchResult(BatchStatus.APPENDED, 5L),
                        new BatchResult(BatchStatus.DUPLICATE, 0L)),
                    List.of(
                        new BatchResult(BatchStatus.APPENDED, 0L),
                        new BatchResult(BatchStatus.APPENDED, 2L)),
                    List.of(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1L)))));

    // Nothing was appended again.
    assertThat(m.reader().partition(1L, 0)).contains(new PartitionInfo(1L, 0, 0L, 6L));
    assertThat(m.reader().partition(1L, 2)).contains(new PartitionInfo(1L, 2, 0L, 3L));
    assertThat(m.reader().partition(2L, 1)).contains(new PartitionInfo(2L, 1, 0L, 4L));
  }

  @Test
  void snapshotV1RestoresProducerState() throws IOException {
    MetaStateMachine m =
        MetaStateMachine.restore(
            golden(MetaGoldenFilesWriter.SNAPSHOT_V1), MetaSettings.defaults());
    CommitWal next =
        new CommitWal(
            MetaGoldenFilesWriter.originA(9_000),
            "wal/express/node-a/01J0GXQ4G6NZ1X2P5Q7R8T0V1W.wal",
            START + 8_500,
            1_000L,
            List.of(
                new ChunkCommit(
                    1L,
                    0,
                    List.of(
                        // Producer 7's next sequence after 5, then a retry of its 3..4 batch.
                        new BatchCommit(0L, 70, 1, START + 8_400, 7L, (short) 0, 6),
                        new BatchCommit(70L, 80, 2, START + 6_200, 7L, (short) 0, 3))),
                new ChunkCommit(
                    1L,
                    2,
                    List.of(
                        // Producer 8 is at epoch 2: epoch 1 is fenced, sequence 3 follows 2.
                        new BatchCommit(200L, 61, 1, START + 8_400, 8L, (short) 1, 3),
                        new BatchCommit(300L, 61, 1, START + 8_400, 8L, (short) 2, 3)))));
    assertThat(m.apply(10, next))
        .isEqualTo(
            new Outcome.WalCommitted(
                false,
                List.of(
                    List.of(
                        new BatchResult(BatchStatus.APPENDED, 6L),
                        new BatchResult(BatchStatus.DUPLICATE, 3L)),
                    List.of(
                        new BatchResult(BatchStatus.PRODUCER_FENCED, -1L),
                        new BatchResult(BatchStatus.APPENDED, 3L)))));
    assertThat(m.reader().partition(1L, 0))
        .map(PartitionInfo::highWatermark)
        .isEqualTo(Optional.of(7L));
    assertThat(m.reader().partition(1L, 2))
        .map(PartitionInfo::highWatermark)
        .isEqualTo(Optional.of(4L));
  }
}
