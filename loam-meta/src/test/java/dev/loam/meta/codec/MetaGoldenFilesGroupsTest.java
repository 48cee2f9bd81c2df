package dev.loam.meta.codec;

import static dev.loam.meta.codec.MetaGoldenFilesTest.golden;
import static dev.loam.meta.codec.MetaGoldenFixturesGroups.ORDERS_COORDINATOR;
import static dev.loam.meta.codec.MetaGoldenFixturesGroups.WIDE_COORDINATOR;
import static dev.loam.meta.codec.MetaGoldenFixturesGroups.WIDE_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.state.MetaStateMachine;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The golden files of the consumer groups (STYLE.md §3): command tags 28–30 and outcome tag 21
 * (still format version 1), and snapshot version 8. Decoded forever; a failure is a compatibility
 * break, never a reason to regenerate.
 */
class MetaGoldenFilesGroupsTest {

  @Test
  void commandsDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesGroups.COMMANDS_V1_GROUPS));
    assertThat(frames).extracting(f -> (int) f[0]).containsOnly(1);
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(28, 29, 29, 30, 30, 23);
    List<Command> decoded = frames.stream().map(CommandCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesGroups.commandsGroups());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(CommandCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void commitGroupOffsetsIsTheOriginGroupGenerationThenTheOffsets() throws IOException {
    // Written out here, so a fixture edit cannot silently move the golden file.
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesGroups.COMMANDS_V1_GROUPS));
    ByteBuffer b = ByteBuffer.wrap(frames.get(1));
    assertThat(b.get()).as("version").isEqualTo((byte) 1);
    assertThat(b.get()).as("tag").isEqualTo((byte) 29);
    assertThat(string(b)).as("origin.nodeId").isEqualTo("node-a");
    assertThat(b.getLong()).as("origin.nodeEpoch").isEqualTo(MetaGoldenFilesWriter.EPOCH_A);
    assertThat(b.getLong()).as("origin.stampMillis").isEqualTo(1_780_000_000_988L);
    assertThat(b.getLong()).as("coordinatorStreamId").isEqualTo(41L);
    assertThat(string(b)).as("namespace").isEqualTo("default");
    assertThat(string(b)).as("group").isEqualTo("orders-app");
    assertThat(b.getInt()).as("generation").isEqualTo(7);
    assertThat(b.getInt()).as("offsets.count").isEqualTo(2);
    assertThat(b.getLong()).as("streamId").isEqualTo(1L);
    assertThat(b.getInt()).as("partition").isZero();
    assertThat(b.getLong()).as("offset").isEqualTo(1_234L);
    assertThat(b.getInt()).as("leaderEpoch").isEqualTo(5);
    assertThat(string(b)).as("metadata").isEqualTo("from host-1 ✓");
    assertThat(b.getLong()).isEqualTo(1L);
    assertThat(b.getInt()).isEqualTo(2);
    assertThat(b.getLong()).isEqualTo(Long.MAX_VALUE);
    assertThat(b.getInt()).as("leaderEpoch (none)").isEqualTo(-1);
    assertThat(b.getInt()).as("metadata length (empty)").isZero();
    assertThat(b.hasRemaining()).isFalse();

    // DeleteGroupOffsets: ..., bool wholeGroup, count, (i64, i32) pairs.
    ByteBuffer d = ByteBuffer.wrap(frames.get(3));
    d.position(2);
    string(d);
    d.getLong();
    d.getLong();
    assertThat(d.getLong()).isEqualTo(41L);
    string(d);
    string(d);
    assertThat(d.get()).as("wholeGroup").isZero();
    assertThat(d.getInt()).as("partitions.count").isEqualTo(1);
    assertThat(d.getLong()).isEqualTo(1L);
    assertThat(d.getInt()).isEqualTo(2);
    assertThat(d.hasRemaining()).isFalse();
  }

  @Test
  void outcomesDecodeToTheFixturesAndReencodeIdentically() throws IOException {
    List<byte[]> frames =
        MetaGoldenFilesWriter.unframe(golden(MetaGoldenFixturesGroups.OUTCOMES_V1_GROUPS));
    assertThat(frames).extracting(f -> (int) f[1]).containsExactly(21, 21);
    List<Outcome> decoded = frames.stream().map(OutcomeCodec::decode).toList();
    assertThat(decoded).isEqualTo(MetaGoldenFixturesGroups.outcomesGroups());
    for (int i = 0; i < frames.size(); i++) {
      assertThat(OutcomeCodec.encode(decoded.get(i))).as("frame %d", i).isEqualTo(frames.get(i));
    }
  }

  @Test
  void snapshotV8RestoresTheGroupsAndReencodesIdentically() throws IOException {
    byte[] bytes = golden(MetaGoldenFixturesGroups.SNAPSHOT_V8);
    assertThat(MetaGoldenFilesExtTest.version(bytes)).isEqualTo((short) 8);
    MetaStateMachine m = MetaStateMachine.restore(bytes, MetaSettings.defaults());
    MetaReader r = m.reader();
    GroupInfo orders = r.group("default", "orders-app").orElseThrow();
    assertThat(orders.coordinatorStreamId()).isEqualTo(ORDERS_COORDINATOR);
    assertThat(orders.generation()).isEqualTo(3);
    assertThat(orders.offsets()).containsExactly(new GroupOffset(1L, 0, 4L, 0, "m1"));
    GroupInfo wide = r.group("analytics", WIDE_GROUP).orElseThrow();
    assertThat(wide.coordinatorStreamId()).isEqualTo(WIDE_COORDINATOR);
    assertThat(wide.generation()).isZero();
    assertThat(wide.offsets()).containsExactly(new GroupOffset(2L, 1, 1L, -1, "é"));
    assertThat(r.groups("default")).extracting(GroupInfo::group).containsExactly("orders-app");
    assertThat(r.groups("nowhere")).isEmpty();

    // The groups section is last: count 2, analytics before default (String order).
    byte[] tail = groupsSectionOf(bytes);
    ByteBuffer b = ByteBuffer.wrap(tail);
    assertThat(b.getInt()).as("groups.count").isEqualTo(2);
    assertThat(string(b)).isEqualTo("analytics");
    assertThat(string(b)).isEqualTo(WIDE_GROUP);
    assertThat(b.getLong()).isEqualTo(WIDE_COORDINATOR);
    assertThat(b.getInt()).as("generation").isZero();
    assertThat(b.getInt()).as("offsets.count").isEqualTo(1);

    assertThat(m.snapshot()).isEqualTo(bytes);
    assertThat(
            MetaGoldenFilesWriter.state(MetaGoldenFixturesGroups.snapshotV8Commands()).snapshot())
        .isEqualTo(bytes);
  }

  /** The bytes from the groups section's count to just before the trailer. */
  private static byte[] groupsSectionOf(byte[] snapshot) {
    byte[] marker = "analytics".getBytes(StandardCharsets.UTF_8);
    // The last occurrence of the namespace string, minus its length and the group count.
    for (int i = snapshot.length - marker.length; i >= 8; i--) {
      boolean hit = true;
      for (int j = 0; j < marker.length && hit; j++) {
        hit = snapshot[i + j] == marker[j];
      }
      if (hit) {
        // The second-to-last "analytics" is the group's namespace; the last would be the
        // group's offsets-free tail otherwise. Step back over i32 length and i32 count.
        int start = i - 8;
        ByteBuffer probe = ByteBuffer.wrap(snapshot, start, 8);
        if (probe.getInt() == 2 && probe.getInt() == marker.length) {
          byte[] out = new byte[snapshot.length - 4 - start];
          System.arraycopy(snapshot, start, out, 0, out.length);
          return out;
        }
      }
    }
    throw new AssertionError("groups section not found");
  }

  private static String string(ByteBuffer b) {
    byte[] s = new byte[b.getInt()];
    b.get(s);
    return new String(s, StandardCharsets.UTF_8);
  }
}
