package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.CLUSTER_ID;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.CLUSTER_ID_64;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the cluster id (STYLE.md §3): command tag 24 and outcome tag 17 (still format
 * version 1), and snapshot version 5. Decoded forever; a failure is a compatibility break, never a
 * reason to regenerate.
 */
class MetaGoldenFilesClusterTest {

  @Test
  void commandsV1ClusterDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.COMMANDS_V1_CLUSTER);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsOnly(24);

    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.commandsCluster());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.commandsCluster().stream().map(CommandCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void initClusterIsTheOriginThenTheIdAsAString() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFilesWriter.COMMANDS_V1_CLUSTER));
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 24);
    assertThat(b.getInt()).as("origin.nodeId length").isEqualTo(6);
    b.position(b.position() + 6);
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(1_780_000_000_950L);
    assertThat(b.getInt()).as("clusterId length").isEqualTo(26);
    byte[] id = new byte[26];
    b.get(id);
    assertThat(new String(id, StandardCharsets.US_ASCII)).isEqualTo("01J0GXQ2E4KX9V0M3N5P6R8S9T");
    assertThat(b.hasRemaining()).isFalse();

    InitCluster longest = (InitCluster) CommandCodec.decode(frames.get(2));
    assertThat(longest.clusterId()).hasSize(InitCluster.MAX_LENGTH);
    InitCluster empty = (InitCluster) CommandCodec.decode(frames.get(3));
    assertThat(empty.clusterId()).isEmpty();
    assertThat(empty.origin()).isEqualTo(new Origin("nœud-ß", 9L, -5L));
  }

  @Test
  void outcomesV1ClusterDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFilesWriter.OUTCOMES_V1_CLUSTER);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(17, 17);
    // Tag, then the id as a str: i32 length 26, then the ASCII bytes.
    assertThat(ByteBuffer.wrap(frames.get(0)).getInt(2)).isEqualTo(26);
    assertThat(frames.get(0)).hasSize(2 + 4 + 26);

    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFilesWriter.outcomesCluster());
    assertThat(decoded.get(1)).isEqualTo(new Outcome.ClusterInitialized(CLUSTER_ID_64));
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFilesWriter.outcomesCluster().stream().map(OutcomeCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void snapshotV5RestoresTheClusterIdAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFilesWriter.SNAPSHOT_V5);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 5);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(11L);
    assertThat(r.clockMillis()).isEqualTo(START + 9_100);
    // The first proposer's id; the second InitCluster changed nothing.
    assertThat(r.clusterId()).contains(CLUSTER_ID);

    // The v1 content is there unchanged: the body after the header fields is the v1 golden's.
    byte[] v1 = golden(MetaGoldenFilesWriter.SNAPSHOT_V1);
    int v1Body = v1.length - 4 - 24;
    assertThat(Arrays.copyOfRange(bytes, 24, 24 + v1Body))
        .isEqualTo(Arrays.copyOfRange(v1, 24, 24 + v1Body));
    assertThat(r.nodes()).extracting(n -> n.id()).containsExactly("node-a", "node-b");
    assertThat(r.streams("analytics")).extracting(s -> s.name()).containsExactly("clicks");

    // Then the sections of versions 2 to 4, empty: retired objects (count 0), nextProducerId (0),
    // consumers (0), renewals (0), dead nodes (0), ownerships (0); then the id as a str?.
    ByteBuffer b = ByteBuffer.wrap(bytes, 24 + v1Body, bytes.length - 24 - v1Body);
    assertThat(b.getInt()).as("retired.count").isZero();
    assertThat(b.getLong()).as("nextProducerId").isZero();
    assertThat(b.getInt()).as("consumers.count").isZero();
    assertThat(b.getInt()).as("renewals.count").isZero();
    assertThat(b.getInt()).as("dead.count").isZero();
    assertThat(b.getInt()).as("ownerships.count").isZero();
    assertThat(b.getInt()).as("clusterId length").isEqualTo(26);
    byte[] id = new byte[26];
    b.get(id);
    assertThat(new String(id, StandardCharsets.US_ASCII)).isEqualTo("01J0GXQ2E4KX9V0M3N5P6R8S9T");
    assertThat(b.remaining()).as("crc32c").isEqualTo(4);

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(MetaGoldenFilesWriter.state(MetaGoldenFilesWriter.snapshotV5Commands()).snapshot())
        .isEqualTo(bytes);

    // The restored state keeps the first id: a later InitCluster of node-a gets it back.
    Outcome again =
        m.apply(12, new InitCluster(MetaGoldenFilesWriter.originA(9_200), "yet-another"));
    assertThat(again).isEqualTo(new Outcome.ClusterInitialized(CLUSTER_ID));
  }
}
