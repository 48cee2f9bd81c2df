package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.WriterLease;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of fenced appends (STYLE.md §3): command tags 41–43, outcome tag 28 and the
 * fenced batch statuses 6–9 (still format version 1), and snapshot version 11. Decoded forever; a
 * failure is a compatibility break, never a reason to regenerate.
 */
class MetaGoldenFilesWritersTest {
  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWriters.COMMANDS_V1_WRITERS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(41, 42, 43);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesWriters.commandsWriters());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void aFencedBatchIsTheBatchThenItsFlagAndFence() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWriters.COMMANDS_V1_WRITERS));
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 42);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    b.getLong();
    b.getLong();
    assertThat(string(b)).as("objectKey").isEqualTo("wal/standard/node-a/f1.wal");
    b.getLong();
    assertThat(b.getLong()).as("objectSize").isEqualTo(300);
    assertThat(b.getInt()).as("chunks.count").isEqualTo(1);
    assertThat(b.getLong()).as("streamId").isEqualTo(1L);
    assertThat(b.getInt()).as("partition").isZero();
    assertThat(b.getInt()).as("batches.count").isEqualTo(2);
    b.position(b.position() + 38); // the first batch's fixed fields
    assertThat(b.get()).as("fenced").isEqualTo((byte) 1);
    assertThat(string(b)).as("fence.source").isEqualTo(MetaGoldenFixturesWriters.SOURCE);
    assertThat(b.getLong()).as("fence.leaseEpoch").isEqualTo(3L);
    assertThat(b.getLong()).as("fence.sourceFrom").isZero();
    assertThat(b.getLong()).as("fence.sourceTo").isEqualTo(3L);
    b.position(b.position() + 38);
    assertThat(b.get()).as("second batch not fenced").isZero();
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void aCommitWithoutFencesIsStillTag6AndAFenceFlagOtherThan0Or1IsCorruption() throws IOException {
    CommitWal plain =
        (CommitWal)
            MetaGoldenFilesWriter.commands().stream()
                .filter(c -> c instanceof CommitWal)
                .findFirst()
                .orElseThrow();
    assertThat(CommandCodec.encode(plain)[1]).isEqualTo((byte) 6);
    byte[] f =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWriters.COMMANDS_V1_WRITERS))
            .get(1)
            .clone();
    int flag = f.length - 38 - 1 - (8 * 3 + 4 + MetaGoldenFixturesWriters.SOURCE.length()) - 1;
    // The last byte is the second batch's flag (0); set it to 2.
    f[f.length - 1] = 2;
    assertThat(flag).isPositive();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> CommandCodec.decode(f))
        .isInstanceOf(dev.loam.error.CorruptionException.class)
        .hasMessageContaining("commitWal.batch.fenced");
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesWriters.OUTCOMES_V1_WRITERS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(28, 6);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesWriters.outcomesWriters());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    b.position(2 + 1 + 4 + 4); // version, tag, deduplicated, chunks.count, chunk.count
    for (int code = 1; code <= 9; code++) {
      if (code == 2) {
        code = 6; // the fixture lists APPENDED, then the fenced statuses 6..9
      }
      assertThat(b.get()).as("status").isEqualTo((byte) code);
      b.getLong();
    }
    assertThat(b.hasRemaining()).isFalse();
  }

  @Test
  void snapshotV11RestoresTheLeasesAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesWriters.SNAPSHOT_V11);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 11);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesWriters.snapshotV11Commands()).snapshot())
        .isEqualTo(bytes);
    WriterLease l = m.reader().writerLease(1L, 0, MetaGoldenFixturesWriters.SOURCE).orElseThrow();
    assertThat(l.epoch()).isEqualTo(1);
    assertThat(l.holder()).isEqualTo("worker-1");
    assertThat(l.sourceUpto()).isEqualTo(3);
    assertThat(m.reader().writerLease(1L, 1, "other").orElseThrow().sourceUpto())
        .isEqualTo(WriterLease.NOTHING);
    // The writers section is last before the trailer: count 2, then the two leases by key.
    // A lease: streamId, partition, source, epoch, holder, leaseMillis, expiresAt, sourceUpto.
    int second = 8 + 4 + (4 + "other".length()) + 8 + (4 + "worker-2".length()) + 8 + 8 + 8;
    int first = 8 + 4 + (4 + MetaGoldenFixturesWriters.SOURCE.length()) + 8 + (4 + 8) + 8 + 8 + 8;
    ByteBuffer b = ByteBuffer.wrap(bytes, bytes.length - 4 - first - second - 4, 4);
    assertThat(b.getInt()).as("writers.count").isEqualTo(2);
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
