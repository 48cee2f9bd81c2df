package dev.loam.journal.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.CorruptionException;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.state.JournalState;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing of the journal entry and snapshot readers (docs/operations/fuzzing.md).
 * The first input byte is a mode: bit 0 rewrites the trailing CRC-32C (and, for an entry, the body
 * length) after mutation, so the fuzzer explores the fields behind the checksum.
 *
 * <p>Contract: a {@link CorruptionException}, or a value that encodes back to the same bytes.
 */
class JournalFuzzTest {
  @FuzzTest
  void decodeEntry(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0 && bytes.length >= JournalEntryCodec.OVERHEAD) {
      ByteBuffer.wrap(bytes).putInt(20, bytes.length - JournalEntryCodec.OVERHEAD);
      fixCrc(bytes);
    }
    JournalEntry e;
    try {
      e = JournalEntryCodec.decode(bytes);
    } catch (CorruptionException expected) {
      return;
    }
    assertThat(JournalEntryCodec.encode(e)).isEqualTo(bytes);
  }

  @FuzzTest
  void restoreSnapshot(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0 && bytes.length >= 4) {
      fixCrc(bytes);
    }
    JournalState s;
    try {
      s = JournalState.restore(bytes, 1L << 30);
    } catch (CorruptionException expected) {
      return;
    }
    assertThat(s.snapshot()).isEqualTo(bytes);
  }

  private static void fixCrc(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
  }
}
