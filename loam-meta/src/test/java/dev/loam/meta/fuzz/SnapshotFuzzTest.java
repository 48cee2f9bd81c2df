package dev.loam.meta.fuzz;

import static dev.loam.meta.fuzz.Typed.valueOrCorruption;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.state.MetaStateMachine;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing of the metastore snapshot reader through its public entry point, {@link
 * MetaStateMachine#restore} (docs/formats/metastore-snapshot.md, every version 1 to 6). The first
 * input byte is a mode: bit 0 recomputes the CRC-32C trailer after mutation, so that the fuzzer
 * explores the tables behind the checksum.
 *
 * <p>Contract: a {@code CorruptionException} naming the field, or a state machine whose snapshot
 * restores to a state with the identical snapshot (restore and snapshot are inverse on everything
 * restore accepts).
 */
class SnapshotFuzzTest {
  private static final MetaSettings SETTINGS = MetaSettings.defaults();

  @FuzzTest
  void restore(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0 && bytes.length >= 4) {
      CRC32C crc = new CRC32C();
      crc.update(bytes, 0, bytes.length - 4);
      int v = (int) crc.getValue();
      int at = bytes.length - 4;
      bytes[at] = (byte) (v >>> 24);
      bytes[at + 1] = (byte) (v >>> 16);
      bytes[at + 2] = (byte) (v >>> 8);
      bytes[at + 3] = (byte) v;
    }
    MetaStateMachine m = valueOrCorruption(() -> MetaStateMachine.restore(bytes, SETTINGS));
    if (m == null) {
      return;
    }
    byte[] snapshot = m.snapshot();
    MetaStateMachine again = MetaStateMachine.restore(snapshot, SETTINGS);
    assertThat(again.snapshot()).as("snapshot of the restored snapshot").isEqualTo(snapshot);
    assertThat(again.appliedIndex()).isEqualTo(m.appliedIndex());
  }
}
