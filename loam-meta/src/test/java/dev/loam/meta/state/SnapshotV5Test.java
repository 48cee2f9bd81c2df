package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Snapshot version 5 (metastore-snapshot.md): the cluster id. Every state before the first
 * InitCluster keeps its older version and bytes; once the id is set the snapshot is version 5.
 */
class SnapshotV5Test {
  static final long T = SnapshotV2Test.T;
  static final String ULID = "01J0GXQ2E4KX9V0M3N5P6R8S9T";

  static MetaStateMachine registered() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    m.apply(1, new RegisterNode(SnapshotV2Test.o(T), null, 1, null));
    return m;
  }

  static Outcome init(MetaStateMachine m, String id) {
    return m.apply(m.appliedIndex() + 1, new InitCluster(SnapshotV2Test.o(T + 7000), id));
  }

  @Test
  void everyOlderStateKeepsItsVersionUntilTheClusterIdIsSetThenWritesVersion5() {
    List<Supplier<MetaStateMachine>> states =
        List.of(
            SnapshotV5Test::registered,
            SnapshotV2Test::stateWithRetired,
            () -> {
              MetaStateMachine m = registered();
              m.apply(2, new AllocateProducerIds(SnapshotV2Test.o(T), 3));
              return m;
            },
            () -> {
              MetaStateMachine m = registered();
              m.apply(2, new RenewNode(SnapshotV2Test.o(T + 1000)));
              return m;
            });
    for (int v = 1; v <= 4; v++) {
      MetaStateMachine m = states.get(v - 1).get();
      byte[] before = m.snapshot();
      assertThat(SnapshotV3Test.version(before)).as("state %d", v).isEqualTo((short) v);
      assertThat(m.reader().clusterId()).isEmpty();

      assertThat(init(m, ULID)).isEqualTo(new Outcome.ClusterInitialized(ULID));
      byte[] snap = m.snapshot();
      assertThat(SnapshotV3Test.version(snap)).as("state %d", v).isEqualTo((short) 5);
      MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
      assertThat(r.snapshot()).isEqualTo(snap);
      assertThat(r.reader().clusterId()).contains(ULID);
      assertThat(r.reader().nodes()).isEqualTo(m.reader().nodes());
      assertThat(r.reader().retiredObjects(10)).isEqualTo(m.reader().retiredObjects(10));
      assertThat(r.reader().nextProducerId()).isEqualTo(m.reader().nextProducerId());
      assertThat(r.reader().nodeStatus("n1")).isEqualTo(m.reader().nodeStatus("n1"));
      // The restored state keeps the first id: a later InitCluster gets it back, on the original
      // and the copy alike, and both still write the same bytes.
      assertThat(init(r, "other")).isEqualTo(new Outcome.ClusterInitialized(ULID));
      assertThat(init(m, "other")).isEqualTo(new Outcome.ClusterInitialized(ULID));
      assertThat(r.snapshot()).isEqualTo(m.snapshot());
    }
  }

  @Test
  void aVersion5SnapshotEndsWithTheIdAsANullableString() {
    MetaStateMachine m = registered();
    init(m, ULID);
    byte[] snap = m.snapshot();
    int idAt = snap.length - 4 - (4 + ULID.length());
    assertThat(ByteBuffer.wrap(snap).getInt(idAt)).isEqualTo(ULID.length());
    assertThat(new String(snap, idAt + 4, ULID.length(), StandardCharsets.US_ASCII))
        .isEqualTo(ULID);
    // Before it, the empty v4 sections (renewals, dead nodes, ownerships), v3's consumers and
    // producer counter, and v2's retired objects: all zero.
    byte[] zeros = Arrays.copyOfRange(snap, idAt - (4 + 4 + 4 + 4 + 8 + 4), idAt);
    assertThat(zeros).containsOnly((byte) 0);
  }

  @Test
  void aNullEmptyOrInvalidIdOnRestoreIsCorruption() {
    MetaStateMachine m = registered();
    init(m, ULID);
    byte[] snap = m.snapshot();
    int idAt = snap.length - 4 - (4 + ULID.length());
    for (String bad :
        Arrays.asList(null, "", "has space", "é", "x".repeat(InitCluster.MAX_LENGTH + 1))) {
      byte[] damaged = withId(snap, idAt, bad);
      assertThatThrownBy(() -> MetaStateMachine.restore(damaged, MetaSettings.defaults()))
          .as("id %s", bad)
          .isInstanceOf(CorruptionException.class)
          .hasMessageContaining("field=clusterId");
    }
    // The longest valid id restores.
    String longest = "A".repeat(InitCluster.MAX_LENGTH);
    MetaStateMachine r =
        MetaStateMachine.restore(withId(snap, idAt, longest), MetaSettings.defaults());
    assertThat(r.reader().clusterId()).contains(longest);
  }

  /** {@code snap} with the id section replaced and the CRC recomputed. */
  private static byte[] withId(byte[] snap, int idAt, String id) {
    BinaryWriter w = new BinaryWriter(snap.length + 128);
    w.raw(Arrays.copyOf(snap, idAt)).nullableString(id);
    byte[] body = w.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body, 0, body.length);
    return new BinaryWriter(body.length + 4).raw(body).i32((int) crc.getValue()).toByteArray();
  }
}
