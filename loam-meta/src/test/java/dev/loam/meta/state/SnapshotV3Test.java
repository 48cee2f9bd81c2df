package dev.loam.meta.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.Outcome;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Snapshot version 3 (metastore-snapshot.md): the producer-id counter and named consumers; older
 * states keep their older, byte-identical versions.
 */
class SnapshotV3Test {
  static final long T = SnapshotV2Test.T;

  static short version(byte[] snap) {
    return ByteBuffer.wrap(snap).getShort(4);
  }

  @Test
  void consumersAndTheProducerCounterMakeAVersion3SnapshotThatRoundTrips() {
    MetaStateMachine m = SnapshotV2Test.stateWithRetired();
    assertThat(version(m.snapshot())).isEqualTo((short) 2);
    long i = m.appliedIndex();
    Outcome g =
        m.apply(
            ++i, new AcquireConsumerLease(SnapshotV2Test.o(T + 6000), 1, 0, "app", "h1", 30_000));
    long gen = ((Outcome.ConsumerLeaseGranted) g).lease().generation();
    assertThat(
            m.apply(++i, new CommitConsumerOffset(SnapshotV2Test.o(T + 6000), 1, 0, "app", gen, 5)))
        .isInstanceOf(Outcome.ConsumerOffsetCommitted.class);
    m.apply(++i, new AcquireConsumerLease(SnapshotV2Test.o(T + 6000), 1, 0, "aa", "h2", 1000));
    m.apply(++i, new AllocateProducerIds(SnapshotV2Test.o(T + 6000), 7));

    byte[] snap = m.snapshot();
    assertThat(version(snap)).isEqualTo((short) 3);
    MetaStateMachine r = MetaStateMachine.restore(snap, MetaSettings.defaults());
    assertThat(r.snapshot()).isEqualTo(snap);
    assertThat(r.reader().nextProducerId()).isEqualTo(7);
    assertThat(r.reader().consumerLease(1, 0, "app"))
        .isEqualTo(m.reader().consumerLease(1, 0, "app"));
    assertThat(r.reader().consumerLease(1, 0, "app").orElseThrow().committedOffset()).isEqualTo(5);
    assertThat(r.reader().retiredObjects(10)).isEqualTo(m.reader().retiredObjects(10));
    // The restored copy fences like the original.
    Outcome stale =
        r.apply(++i, new CommitConsumerOffset(SnapshotV2Test.o(T + 6000), 1, 0, "app", gen + 1, 5));
    assertThat(((Outcome.Rejected) stale).reason()).isEqualTo(Outcome.RejectReason.FENCED);
  }

  @Test
  void aVersion3SnapshotMayHoldNoRetiredObjects() {
    MetaStateMachine m = new MetaStateMachine(MetaSettings.defaults());
    m.apply(1, new dev.loam.meta.command.RegisterNode(SnapshotV2Test.o(T), null, 1, null));
    assertThat(version(m.snapshot())).isEqualTo((short) 1);
    m.apply(2, new AllocateProducerIds(SnapshotV2Test.o(T), 1));
    byte[] snap = m.snapshot();
    assertThat(version(snap)).isEqualTo((short) 3);
    assertThat(MetaStateMachine.restore(snap, MetaSettings.defaults()).snapshot()).isEqualTo(snap);
  }

  @Test
  void aConsumerOfAnUnknownStreamIsCorruption() {
    MetaStateMachine m = SnapshotV2Test.stateWithRetired();
    long i = m.appliedIndex();
    m.apply(++i, new AcquireConsumerLease(SnapshotV2Test.o(T + 6000), 1, 0, "app", "h1", 30_000));
    byte[] snap = m.snapshot();
    // The last consumer's fields: streamId (8) partition (4) "app" (4+3) generation (8) "h1" (4+2)
    // leaseMillis, expiresAt, committedOffset (3 x 8), then the 4-byte CRC.
    int consumerStart = snap.length - 4 - (8 + 4 + 7 + 8 + 6 + 24);
    assertThat(ByteBuffer.wrap(snap).getLong(consumerStart)).isEqualTo(1);
    ByteBuffer.wrap(snap).putLong(consumerStart, 99);
    CRC32C crc = new CRC32C();
    crc.update(snap, 0, snap.length - 4);
    ByteBuffer.wrap(snap).putInt(snap.length - 4, (int) crc.getValue());
    assertThatThrownBy(() -> MetaStateMachine.restore(snap, MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("field=consumer.streamId");
  }

  @Test
  void aVersionNewerThanThisReaderIsCorruption() {
    byte[] snap = new MetaStateMachine(MetaSettings.defaults()).snapshot();
    ByteBuffer.wrap(snap).putShort(4, (short) (MetaStateMachine.SNAPSHOT_VERSION + 1));
    assertThatThrownBy(() -> MetaStateMachine.restore(snap, MetaSettings.defaults()))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("version");
  }
}
