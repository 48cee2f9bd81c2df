package dev.loam.journal.entry;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.journal.Batches;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad input to the entry constructors is refused INVALID, naming what was wrong. */
class JournalEntryTest {
  @Test
  void negativeIdsAreRefused() {
    assertThatThrownBy(() -> new JournalEntry.Host(-1, 0, 0))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("stream=-1");
    assertThatThrownBy(() -> new JournalEntry.Append(1, -2, Batches.plain("a", 1)))
        .hasMessageContaining("partition=-2");
    assertThatThrownBy(() -> new JournalEntry.Host(1, 0, -5))
        .hasMessageContaining("startOffset=-5");
  }

  @Test
  void anAppendNeedsExactlyOneValidBatch() {
    byte[] b = Batches.plain("a", 2);
    byte[] corrupt = b.clone();
    corrupt[corrupt.length - 1] ^= 1;
    assertThatThrownBy(() -> new JournalEntry.Append(7, 1, corrupt))
        .isInstanceOfSatisfying(
            LoamException.class,
            e ->
                org.assertj.core.api.Assertions.assertThat(e.kind())
                    .isEqualTo(LoamException.Kind.INVALID))
        .hasMessageContaining("stream=7 partition=1");
    byte[] two = Arrays.copyOf(b, b.length * 2);
    System.arraycopy(b, 0, two, b.length, b.length);
    assertThatThrownBy(() -> new JournalEntry.Append(7, 1, two))
        .hasMessageContaining("bytes after the record batch");
    assertThatThrownBy(() -> new JournalEntry.Append(7, 1, Arrays.copyOf(b, 30)))
        .isInstanceOf(LoamException.class);
  }

  @Test
  void transactionalBatchesAreRefused() {
    byte[] b =
        RecordBatchEncoder.encode(
            new BatchSettings(0, Compression.NONE, TimestampType.CREATE_TIME, 5, (short) 0, 0),
            List.of(RecordData.of(1, null, new byte[] {1})));
    // attributes bit 4 = transactional; the attributes are inside the CRC, so re-encode is not
    // possible: flip the bit and fix the CRC the way Kafka computes it.
    int attributesAt = 21;
    b[attributesAt + 1] |= 0x10;
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(b, attributesAt, b.length - attributesAt);
    dev.loam.wal.BigEndian.putInt(b, 17, (int) crc.getValue());
    assertThatThrownBy(() -> new JournalEntry.Append(1, 0, b))
        .hasMessageContaining("transactional=true");
  }

  @Test
  void segmentPointersAreChecked() {
    assertThatThrownBy(() -> new SegmentPointer(5, 5, "k")).hasMessageContaining("endOffset=5");
    assertThatThrownBy(() -> new SegmentPointer(0, 5, "")).hasMessageContaining("keyBytes=0");
    assertThatThrownBy(() -> new SegmentPointer(0, 5, "x".repeat(1025)))
        .hasMessageContaining("keyBytes=1025");
  }
}
