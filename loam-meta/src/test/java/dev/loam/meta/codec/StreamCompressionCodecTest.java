package dev.loam.meta.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamConfig.CleanupPolicy;
import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.Compression;
import org.junit.jupiter.api.Test;

/**
 * A stream's default codec rides in bits 4–6 of StreamConfig's policy byte (metastore-commands.md
 * "StreamConfig"): none leaves the bytes a stream had before the codec existed, each codec is
 * Kafka's id, and an unknown id or the reserved bit is corruption naming the field.
 */
class StreamCompressionCodecTest {
  private static final Origin O = new Origin("n1", 1, 2);

  private static byte[] encode(StreamConfig c) {
    return CommandCodec.encode(new CreateStream(O, "ns", "s", c));
  }

  @Test
  void noCodecKeepsThePolicyByteAsItWas() {
    byte[] none = encode(new StreamConfig(3, DurabilityClass.EXPRESS, 5, 6, CleanupPolicy.COMPACT));
    assertThat(none[none.length - 1]).isEqualTo((byte) 1);
  }

  @Test
  void eachCodecIsKafkasIdInTheHighBitsAndRoundTrips() {
    for (Compression c : Compression.values()) {
      StreamConfig cfg =
          new StreamConfig(2, DurabilityClass.STANDARD, -1, -1, CleanupPolicy.COMPACT, c);
      byte[] b = encode(cfg);
      assertThat(b[b.length - 1] & 0xFF).as(c.name()).isEqualTo((c.code() << 4) | 1);
      assertThat(((CreateStream) CommandCodec.decode(b)).config()).isEqualTo(cfg);
    }
  }

  @Test
  void aSnapshotKeepsTheStreamsCodecInTheVersionItHadWithoutOne() {
    dev.loam.meta.MetaSettings settings = dev.loam.meta.MetaSettings.defaults();
    Origin o = new Origin("n1", 1, 1_780_000_000_000L);
    dev.loam.meta.state.MetaStateMachine plain = new dev.loam.meta.state.MetaStateMachine(settings);
    dev.loam.meta.state.MetaStateMachine zstd = new dev.loam.meta.state.MetaStateMachine(settings);
    plain.apply(1, new dev.loam.meta.command.RegisterNode(o, "h:1", 1, "az"));
    zstd.apply(1, new dev.loam.meta.command.RegisterNode(o, "h:1", 1, "az"));
    plain.apply(2, new CreateStream(o, "default", "s", StreamConfig.standard(2)));
    zstd.apply(
        2,
        new CreateStream(
            o, "default", "s", StreamConfig.standard(2).withCompression(Compression.ZSTD)));
    byte[] a = plain.snapshot();
    byte[] b = zstd.snapshot();
    assertThat(b).hasSameSizeAs(a);
    assertThat(MetaGoldenFilesExtTest.version(b)).isEqualTo(MetaGoldenFilesExtTest.version(a));
    dev.loam.meta.state.MetaStateMachine restored =
        dev.loam.meta.state.MetaStateMachine.restore(b, settings);
    assertThat(restored.reader().stream("default", "s").orElseThrow().config().compression())
        .isEqualTo(Compression.ZSTD);
    assertThat(restored.snapshot()).isEqualTo(b);
  }

  @Test
  void anUnknownCodecOrTheReservedBitIsCorruption() {
    byte[] b = encode(StreamConfig.standard(1));
    b[b.length - 1] = (byte) (5 << 4);
    assertThatThrownBy(() -> CommandCodec.decode(b))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("compression");
    b[b.length - 1] = (byte) 0x80;
    assertThatThrownBy(() -> CommandCodec.decode(b))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("reserved bit 7");
  }
}
