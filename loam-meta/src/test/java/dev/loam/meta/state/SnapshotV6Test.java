package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeEndpoint;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Snapshot version 6 (metastore-snapshot.md): the nodes' named endpoints. Every state without an
 * endpoint keeps its older version and bytes; while some node has one the snapshot is version 6,
 * and anything in its section that no writer produces is refused as corruption on restore.
 */
class SnapshotV6Test {
  static final long T = SnapshotV2Test.T;

  static Outcome set(MetaStateMachine m, String name, String address) {
    return m.apply(
        m.appliedIndex() + 1, new SetNodeEndpoint(SnapshotV2Test.o(T + 8000), name, address));
  }

  @Test
  void everyOlderStateKeepsItsVersionUntilAnEndpointIsSetThenWritesVersion6() {
    List<Supplier<MetaStateMachine>> states =
        List.of(
            SnapshotV5Test::registered,
            SnapshotV2Test::stateWithRetired,
            () -> {
              MetaStateMachine m = SnapshotV5Test.registered();
              m.apply(2, new AllocateProducerIds(SnapshotV2Test.o(T), 3));
              return m;
            },
            () -> {
              MetaStateMachine m = SnapshotV5Test.registered();
              m.apply(2, new RenewNode(SnapshotV2Test.o(T + 1000)));
              return m;
            },
            () -> {
              MetaStateMachine m = SnapshotV5Test.registered();
              SnapshotV5Test.init(m, SnapshotV5Test.ULID);
              return m;
            });
    for (int v = 1; v <= 5; v++) {
      MetaStateMachine m = states.get(v - 1).get();
      byte[] before = m.snapshot();
      assertThat(SnapshotV3Test.version(before)).as("state %d", v).isEqualTo((short) v);

      assertThat(set(m, "kafka", "10.0.0.1:9092")).isInstanceOf(Outcome.NodeRegistered.class);
      byte[] snap = m.snapshot();
      assertThat(SnapshotV3Test.version(snap)).as("state %d", v).isEqualTo((short) 6);
      MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
      assertThat(r.snapshot()).isEqualTo(snap);
      assertThat(r.reader().nodes()).isEqualTo(m.reader().nodes());
      assertThat(r.reader().node("n1").orElseThrow().endpoints())
          .containsExactly(Map.entry("kafka", "10.0.0.1:9092"));
      assertThat(r.reader().clusterId()).isEqualTo(m.reader().clusterId());
      assertThat(r.reader().retiredObjects(10)).isEqualTo(m.reader().retiredObjects(10));
      assertThat(r.reader().nextProducerId()).isEqualTo(m.reader().nextProducerId());
      assertThat(r.reader().nodeStatus("n1")).isEqualTo(m.reader().nodeStatus("n1"));

      // Removing the last endpoint goes back to the older version; only the index and clock moved.
      set(m, "kafka", "");
      byte[] after = m.snapshot();
      assertThat(SnapshotV3Test.version(after)).as("state %d", v).isEqualTo((short) v);
      assertThat(Arrays.copyOfRange(after, 24, after.length - 4))
          .isEqualTo(Arrays.copyOfRange(before, 24, before.length - 4));
    }
  }

  /** Two registered nodes, n1 with two endpoints; the section is the snapshot's last bytes. */
  private static MetaStateMachine twoNodes() {
    MetaStateMachine m = SnapshotV5Test.registered();
    m.apply(2, new RegisterNode(new Origin("n2", 1, T), null, 1, null));
    set(m, "kafka", "h:1");
    set(m, "grpc", "h:2");
    return m;
  }

  private static byte[] section(Consumer<BinaryWriter> body) {
    BinaryWriter w = new BinaryWriter(64);
    body.accept(w);
    return w.toByteArray();
  }

  @Test
  void theSectionIsTheNodesWithEndpointsByIdThenTheirEndpointsByName() {
    byte[] snap = twoNodes().snapshot();
    byte[] full =
        section(
            w ->
                w.i32(1)
                    .string("n1")
                    .i32(2)
                    .string("grpc")
                    .string("h:2")
                    .string("kafka")
                    .string("h:1"));
    int at = snap.length - 4 - full.length;
    assertThat(Arrays.copyOfRange(snap, at, snap.length - 4)).isEqualTo(full);
    // Before it, the cluster id section: null (-1), since no InitCluster was applied.
    assertThat(Arrays.copyOfRange(snap, at - 4, at)).containsOnly((byte) 0xFF);
  }

  @Test
  void anythingNoWriterProducesInTheSectionIsCorruption() {
    byte[] snap = twoNodes().snapshot();
    int sectionLength = 4 + (4 + 2) + 4 + (4 + 4) + (4 + 3) + (4 + 5) + (4 + 3);
    int at = snap.length - 4 - sectionLength;
    assertThat(MetaStateMachine.restore(withSection(snap, at, section(w -> good(w))), settings()))
        .isNotNull();

    Map<String, byte[]> bad =
        Map.ofEntries(
            Map.entry("endpoints.count", section(w -> w.i32(0))),
            Map.entry(
                "endpoints.nodeId",
                section(w -> w.i32(1).string("nx").i32(1).string("a").string("h"))),
            Map.entry(
                "endpoints.nodeId/unsorted",
                section(
                    w ->
                        w.i32(2)
                            .string("n2")
                            .i32(1)
                            .string("a")
                            .string("h")
                            .string("n1")
                            .i32(1)
                            .string("a")
                            .string("h"))),
            // A node listed without endpoints (followed by one with, so the outer count fits).
            Map.entry(
                "endpoints.node.count",
                section(
                    w ->
                        w.i32(2)
                            .string("n1")
                            .i32(0)
                            .string("n2")
                            .i32(1)
                            .string("a")
                            .string("h".repeat(32)))),
            Map.entry(
                "endpoints.node.count/over",
                section(
                    w -> {
                      w.i32(1).string("n1").i32(SetNodeEndpoint.MAX_ENDPOINTS + 1);
                      for (int i = 0; i < SetNodeEndpoint.MAX_ENDPOINTS + 1; i++) {
                        w.string("e" + (char) ('a' + i)).string("h");
                      }
                    })),
            Map.entry(
                "endpoint.name",
                section(w -> w.i32(1).string("n1").i32(1).string("Kafka").string("h"))),
            Map.entry(
                "endpoint.name/duplicate",
                section(
                    w ->
                        w.i32(1)
                            .string("n1")
                            .i32(2)
                            .string("a")
                            .string("h")
                            .string("a")
                            .string("h"))),
            Map.entry(
                "endpoint.address",
                section(w -> w.i32(1).string("n1").i32(1).string("a").string(""))),
            Map.entry(
                "endpoint.address/long",
                section(
                    w ->
                        w.i32(1)
                            .string("n1")
                            .i32(1)
                            .string("a")
                            .string("h".repeat(SetNodeEndpoint.MAX_ADDRESS_LENGTH + 1)))));
    for (Map.Entry<String, byte[]> e : bad.entrySet()) {
      String field = e.getKey().split("/")[0];
      byte[] damaged = withSection(snap, at, e.getValue());
      assertThatThrownBy(() -> MetaStateMachine.restore(damaged, settings()))
          .as(e.getKey())
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("field=" + field);
    }
  }

  /** A valid section unlike the written one: n2 with the longest name and address. */
  private static void good(BinaryWriter w) {
    w.i32(1)
        .string("n2")
        .i32(1)
        .string("z".repeat(SetNodeEndpoint.MAX_NAME_LENGTH))
        .string("h".repeat(SetNodeEndpoint.MAX_ADDRESS_LENGTH));
  }

  private static MetaSettings settings() {
    return MetaSettings.defaults();
  }

  /** {@code snap} with everything from {@code at} replaced by {@code section} and a new CRC. */
  private static byte[] withSection(byte[] snap, int at, byte[] section) {
    BinaryWriter w = new BinaryWriter(snap.length + section.length);
    w.raw(Arrays.copyOf(snap, at)).raw(section);
    byte[] body = w.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body, 0, body.length);
    return new BinaryWriter(body.length + 4).raw(body).i32((int) crc.getValue()).toByteArray();
  }
}
