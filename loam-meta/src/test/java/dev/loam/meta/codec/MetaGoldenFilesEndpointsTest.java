package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.EPOCH_A;
import static dev.loam.meta.codec.MetaGoldenFilesWriter.START;
import static dev.loam.meta.codec.MetaGoldenFixturesEndpoints.ADDRESS_255;
import static dev.loam.meta.codec.MetaGoldenFixturesEndpoints.GRPC_A;
import static dev.loam.meta.codec.MetaGoldenFixturesEndpoints.KAFKA_A;
import static dev.loam.meta.codec.MetaGoldenFixturesEndpoints.KAFKA_B;
import static dev.loam.meta.codec.MetaGoldenFixturesEndpoints.NAME_32;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the nodes' named endpoints (STYLE.md §3): command tag 25 and outcome tag 18
 * (still format version 1), and snapshot version 6. Decoded forever; a failure is a compatibility
 * break, never a reason to regenerate.
 */
class MetaGoldenFilesEndpointsTest {

  @Test
  void commandsV1EndpointsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFixturesEndpoints.COMMANDS_V1_ENDPOINTS);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsOnly(25);

    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesEndpoints.commandsEndpoints());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFixturesEndpoints.commandsEndpoints().stream().map(CommandCodec::encode)))
        .isEqualTo(file);
  }

  @Test
  void setNodeEndpointIsTheOriginThenNameAndAddressAsStrings() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesEndpoints.COMMANDS_V1_ENDPOINTS));
    ByteBuffer b = ByteBuffer.wrap(frames.get(0));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 25);
    assertThat(b.getInt()).as("origin.nodeId length").isEqualTo(6);
    b.position(b.position() + 6);
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(1_780_000_000_975L);
    assertThat(string(b)).as("name").isEqualTo("kafka");
    assertThat(string(b)).as("address").isEqualTo("10.0.0.1:9092");
    assertThat(b.hasRemaining()).isFalse();

    // A removal is an empty address: a str of length 0, the frame's last four bytes.
    byte[] removal = frames.get(2);
    assertThat(ByteBuffer.wrap(removal).getInt(removal.length - 4)).isZero();
    SetNodeEndpoint longest = (SetNodeEndpoint) CommandCodec.decode(frames.get(3));
    assertThat(longest.name()).hasSize(SetNodeEndpoint.MAX_NAME_LENGTH).isEqualTo(NAME_32);
    assertThat(longest.address())
        .hasSize(SetNodeEndpoint.MAX_ADDRESS_LENGTH)
        .isEqualTo(ADDRESS_255);
    assertThat(SetNodeEndpoint.isValidName(longest.name())).isTrue();
    SetNodeEndpoint refused = (SetNodeEndpoint) CommandCodec.decode(frames.get(4));
    assertThat(SetNodeEndpoint.isValidName(refused.name())).isFalse();
  }

  @Test
  void outcomesV1EndpointsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    byte[] file = golden(MetaGoldenFixturesEndpoints.OUTCOMES_V1_ENDPOINTS);
    List<byte[]> frames = MetaGoldenFilesWriter.unframe(file);
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(18, 18);

    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesEndpoints.outcomesEndpoints());
    NodeInfo a = ((Outcome.NodeRegistered) decoded.get(0)).node();
    assertThat(a.endpoints())
        .containsExactly(Map.entry("grpc", GRPC_A), Map.entry("kafka", KAFKA_A));
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    assertThat(
            MetaGoldenFilesWriter.frame(
                MetaGoldenFixturesEndpoints.outcomesEndpoints().stream().map(OutcomeCodec::encode)))
        .isEqualTo(file);

    // Tag 18 is tag 2's body, then the endpoints: the same node without endpoints encodes as tag 2
    // with exactly that prefix.
    byte[] plain = OutcomeCodec.encode(new Outcome.NodeRegistered(a.withEndpoints(null)));
    assertThat(plain[1]).isEqualTo((byte) 2);
    byte[] withEndpoints = frames.get(0);
    assertThat(Arrays.copyOfRange(withEndpoints, 2, plain.length))
        .isEqualTo(Arrays.copyOfRange(plain, 2, plain.length));
    ByteBuffer b =
        ByteBuffer.wrap(withEndpoints, plain.length, withEndpoints.length - plain.length);
    assertThat(b.getInt()).as("endpoints.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo("grpc");
    assertThat(string(b)).isEqualTo(GRPC_A);
    assertThat(string(b)).isEqualTo("kafka");
    assertThat(string(b)).isEqualTo(KAFKA_A);
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void snapshotV6RestoresTheEndpointsAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesEndpoints.SNAPSHOT_V6);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 6);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    assertThat(r.appliedIndex()).isEqualTo(15L);
    assertThat(r.clockMillis()).isEqualTo(START + 9_500);
    assertThat(r.clusterId()).isEmpty();
    assertThat(r.node("node-a").orElseThrow().endpoints())
        .containsExactly(Map.entry("grpc", GRPC_A), Map.entry("kafka", KAFKA_A));
    // node-b's grpc was set, then removed.
    assertThat(r.node("node-b").orElseThrow().endpoints())
        .containsExactly(Map.entry("kafka", KAFKA_B));

    // The v1 content is there unchanged: the body after the header fields is the v1 golden's.
    byte[] v1 = golden(MetaGoldenFilesWriter.SNAPSHOT_V1);
    int v1Body = v1.length - 4 - 24;
    assertThat(Arrays.copyOfRange(bytes, 24, 24 + v1Body))
        .isEqualTo(Arrays.copyOfRange(v1, 24, 24 + v1Body));
    assertThat(r.streams("analytics")).extracting(s -> s.name()).containsExactly("clicks");

    // Then the empty v2..v4 sections, a null cluster id, and the endpoints by node and name.
    ByteBuffer b = ByteBuffer.wrap(bytes, 24 + v1Body, bytes.length - 24 - v1Body);
    assertThat(b.getInt()).as("retired.count").isZero();
    assertThat(b.getLong()).as("nextProducerId").isZero();
    assertThat(b.getInt()).as("consumers.count").isZero();
    assertThat(b.getInt()).as("renewals.count").isZero();
    assertThat(b.getInt()).as("dead.count").isZero();
    assertThat(b.getInt()).as("ownerships.count").isZero();
    assertThat(b.getInt()).as("clusterId length (null)").isEqualTo(-1);
    assertThat(b.getInt()).as("endpoints.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo("node-a");
    assertThat(b.getInt()).as("node-a endpoints").isEqualTo(2);
    assertThat(List.of(string(b), string(b), string(b), string(b)))
        .containsExactly("grpc", GRPC_A, "kafka", KAFKA_A);
    assertThat(string(b)).isEqualTo("node-b");
    assertThat(b.getInt()).as("node-b endpoints").isEqualTo(1);
    assertThat(List.of(string(b), string(b))).containsExactly("kafka", KAFKA_B);
    assertThat(b.remaining()).as("crc32c").isEqualTo(4);

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesEndpoints.snapshotV6Commands())
                .snapshot())
        .isEqualTo(bytes);

    // The restored endpoints are the registry's: node-a restarting (a higher epoch) drops its own,
    // and with node-b's left the snapshot stays version 6; node-b removing its last one goes back
    // to the version of a state without endpoints (1, as the v1 golden).
    long restartedEpoch = START + 10_000;
    Outcome restarted =
        m.apply(
            16,
            new RegisterNode(
                new dev.loam.meta.command.Origin("node-a", restartedEpoch, START + 10_000),
                "10.0.0.1:9092",
                4,
                "az-1"));
    assertThat(((Outcome.NodeRegistered) restarted).node().endpoints()).isEmpty();
    assertThat(MetaGoldenFilesExtTest.version(m.snapshot())).isEqualTo((short) 6);
    m.apply(17, new SetNodeEndpoint(MetaGoldenFilesWriter.originB(10_100), "kafka", ""));
    assertThat(MetaGoldenFilesExtTest.version(m.snapshot())).isEqualTo((short) 1);
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
