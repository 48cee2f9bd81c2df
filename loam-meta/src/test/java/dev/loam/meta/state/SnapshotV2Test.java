package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RetiredObject;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.TrimPartition;
import dev.loam.wal.DurabilityClass;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Snapshot versions 1 and 2 (metastore-snapshot.md): retired objects and rebuilt refcounts. */
class SnapshotV2Test {
  static final long T = 1_780_000_000_000L;

  static Origin o(long t) {
    return new Origin("n1", 1, t);
  }

  static MetaStateMachine stateWithRetired() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    long i = 0;
    m.apply(++i, new RegisterNode(o(T), null, 1, null));
    m.apply(
        ++i,
        new CreateStream(
            o(T),
            "default",
            "s",
            new StreamConfig(
                1, DurabilityClass.STANDARD, 1000, -1, StreamConfig.CleanupPolicy.DELETE)));
    for (int k = 0; k < 3; k++) {
      m.apply(
          ++i,
          new CommitWal(
              o(T),
              "wal/standard/n1/" + k + ".wal",
              T,
              1000,
              List.of(
                  new ChunkCommit(
                      1, 0, List.of(new BatchCommit(0, 100, 2, T, -1, (short) -1, -1))))));
    }
    m.apply(++i, new TrimPartition(o(T + 5000), 1, 0, 4, TrimPartition.Reason.TIME));
    return m;
  }

  @Test
  void retiredObjectsMakeAVersion2SnapshotThatRoundTrips() {
    MetaStateMachine m = stateWithRetired();
    assertThat(m.reader().retiredObjects(10))
        .containsExactly(
            new RetiredObject("wal/standard/n1/0.wal", T + 5000),
            new RetiredObject("wal/standard/n1/1.wal", T + 5000));
    byte[] snap = m.snapshot();
    assertThat(ByteBuffer.wrap(snap).getShort(4)).isEqualTo((short) 2);
    MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(r.snapshot()).isEqualTo(snap);
    assertThat(r.reader().objectRefs("wal/standard/n1/2.wal")).isEqualTo(1);
    assertThat(r.reader().retiredObjects(10)).isEqualTo(m.reader().retiredObjects(10));
    assertThat(r.reader().partition(1, 0).orElseThrow().logStartOffset()).isEqualTo(4);
  }

  @Test
  void withNothingRetiredTheSnapshotIsVersion1Again() {
    MetaStateMachine m = stateWithRetired();
    m.apply(
        100,
        new DeleteObjects(o(T + 6000), List.of("wal/standard/n1/0.wal", "wal/standard/n1/1.wal")));
    byte[] snap = m.snapshot();
    assertThat(ByteBuffer.wrap(snap).getShort(4)).isEqualTo((short) 1);
    assertThat(MetaStateMachine.restore(snap, MetaSettings.defaults()).snapshot()).isEqualTo(snap);
  }

  @Test
  void aRetiredObjectThatIsStillReferencedIsCorruption() {
    MetaStateMachine m = stateWithRetired();
    byte[] snap = m.snapshot();
    // Rename the first retired key to the referenced one (same length), then fix the CRC.
    String s = new String(snap, java.nio.charset.StandardCharsets.ISO_8859_1);
    int at = s.lastIndexOf("wal/standard/n1/0.wal");
    snap[at + "wal/standard/n1/".length()] = '2';
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(snap, 0, snap.length - 4);
    ByteBuffer.wrap(snap).putInt(snap.length - 4, (int) crc.getValue());
    assertThatThrownBy(() -> MetaStateMachine.restore(snap, MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("retired");
  }
}
