package dev.loam.journal.golden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.journal.Batches;
import dev.loam.journal.entry.JournalEntry;
import dev.loam.journal.entry.JournalEntryCodec;
import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.entry.SegmentPointer;
import dev.loam.journal.state.JournalRead;
import dev.loam.journal.state.JournalState;
import dev.loam.wal.batch.RecordBatch;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decodes the checked-in journal golden files; these must keep passing forever. */
class JournalGoldenFilesTest {
  static byte[] golden(String name) throws IOException {
    try (InputStream in = JournalGoldenFilesTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void hostEntry() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.ENTRY_HOST);
    assertThat(JournalEntryCodec.decode(bytes)).isEqualTo(new JournalEntry.Host(42, 3, 100));
    assertThat(bytes).hasSize(36);
    assertThat(JournalEntryCodec.encode(JournalGoldenFixtures.host())).isEqualTo(bytes);
  }

  @Test
  void appendEntry() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.ENTRY_APPEND);
    JournalEntry.Append a = (JournalEntry.Append) JournalEntryCodec.decode(bytes);
    assertThat(a.streamId()).isEqualTo(42);
    assertThat(a.partition()).isEqualTo(3);
    RecordBatch h = a.header();
    assertThat(h.producerId()).isEqualTo(4242);
    assertThat(h.producerEpoch()).isEqualTo((short) 3);
    assertThat(h.baseSequence()).isEqualTo(17);
    assertThat(h.recordCount()).isEqualTo(3);
    assertThat(Batches.values(List.of(a.batch())))
        .containsExactly("0:golden-0", "1:golden-1", "2:golden-2");
    assertThat(JournalEntryCodec.encode(JournalGoldenFixtures.append())).isEqualTo(bytes);
  }

  @Test
  void sealEntry() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.ENTRY_SEAL);
    assertThat(JournalEntryCodec.decode(bytes))
        .isEqualTo(
            new JournalEntry.Seal(
                42, 3, new SegmentPointer(100, 103, "ns/1/seg/42/3/00000000000000000100.seg")));
    assertThat(JournalEntryCodec.encode(JournalGoldenFixtures.seal())).isEqualTo(bytes);
  }

  @Test
  void releaseEntry() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.ENTRY_RELEASE);
    assertThat(bytes[6]).as("type").isEqualTo((byte) 4);
    assertThat(JournalEntryCodec.decode(bytes)).isEqualTo(new JournalEntry.Release(42, 3, 103));
    assertThat(JournalEntryCodec.encode(JournalGoldenFixtures.release())).isEqualTo(bytes);
  }

  @Test
  void snapshot() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.SNAPSHOT);
    JournalState s = JournalState.restore(bytes, 1 << 20);
    assertThat(s.appliedEntries()).isEqualTo(6);
    JournalRead sealed = s.read(42, 3, 101, 1 << 20);
    assertThat(sealed.segment())
        .contains(new SegmentPointer(100, 103, "ns/1/seg/42/3/00000000000000000100.seg"));
    JournalRead tail = s.read(42, 3, 103, 1 << 20);
    assertThat(Batches.values(tail.batches())).containsExactly("103:tail-0", "104:tail-1");
    assertThat(tail.highWatermark()).isEqualTo(105);
    assertThat(Batches.values(s.read(42, 0, 0, 1 << 20).batches())).containsExactly("0:p0-0");
    // The producer table came back: a retry of the golden batch is a duplicate at 100..102.
    assertThat(s.apply(JournalGoldenFixtures.append()))
        .isEqualTo(new JournalResult.Duplicate(100, 102));
    assertThat(JournalGoldenFixtures.snapshotState().snapshot()).isEqualTo(bytes);
  }

  @Test
  void snapshotV2() throws IOException {
    byte[] bytes = golden(JournalGoldenFixtures.SNAPSHOT_V2);
    assertThat(java.nio.ByteBuffer.wrap(bytes).getShort(4)).isEqualTo((short) 2);
    JournalState s = JournalState.restore(bytes, 1 << 20);
    assertThat(s.appliedEntries()).isEqualTo(45);
    // The newest 16 pointers are kept; older sealed offsets are read through the offset index.
    assertThat(s.read(42, 3, 3, 1 << 20).segment()).isEmpty();
    assertThat(s.read(42, 3, 3, 1 << 20).sealedOffset()).isEqualTo(20);
    assertThat(s.read(42, 3, 4, 1 << 20).segment())
        .contains(new SegmentPointer(4, 5, "seg/42/3/04"));
    assertThat(s.read(42, 3, 19, 1 << 20).segment())
        .contains(new SegmentPointer(19, 20, "seg/42/3/19"));
    assertThat(Batches.values(s.read(42, 3, 20, 1 << 20).batches())).containsExactly("20:tail-0");
    assertThat(s.read(42, 0, 0, 1 << 20).segment())
        .contains(new SegmentPointer(0, 1, "seg/42/0/00"));
    assertThat(JournalGoldenFixtures.snapshotV2State().snapshot()).isEqualTo(bytes);
  }
}
