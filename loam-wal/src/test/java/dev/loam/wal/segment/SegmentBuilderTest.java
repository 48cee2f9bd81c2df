package dev.loam.wal.segment;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import java.util.List;
import org.junit.jupiter.api.Test;

class SegmentBuilderTest {
  static byte[] batch(int records) {
    List<RecordData> rs =
        java.util.stream.IntStream.range(0, records)
            .mapToObj(i -> RecordData.of(i, null, new byte[] {(byte) i}))
            .toList();
    return RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), rs);
  }

  @Test
  void entriesMustBeDense() {
    SegmentBuilder b = new SegmentBuilder(1, 0, 10);
    b.addEntry(10, batch(2));
    assertThatThrownBy(() -> b.addEntry(13, batch(1)))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("expectedOffset=12");
  }

  @Test
  void offsetsPastLongMaxAreRefusedAndLeaveTheBuilderUnchanged() {
    SegmentBuilder b = new SegmentBuilder(1, 0, Long.MAX_VALUE - 3);
    b.addEntry(Long.MAX_VALUE - 3, batch(2));
    assertThatThrownBy(() -> b.addEntry(Long.MAX_VALUE - 1, batch(2)))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("segment offsets overflow");
    org.assertj.core.api.Assertions.assertThat(b.batchCount()).isOne();
    org.assertj.core.api.Assertions.assertThat(b.nextOffset()).isEqualTo(Long.MAX_VALUE - 1);
    b.addEntry(Long.MAX_VALUE - 1, batch(1)); // ends exactly at Long.MAX_VALUE
    org.assertj.core.api.Assertions.assertThat(SegmentReader.parse(b.build().bytes()).endOffset())
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anIndexWhoseOffsetsWrapIsCorruptionNotAGapLetThrough() {
    // Entry 0 claims [MAX_VALUE - 1, MAX_VALUE + 1), entry 1 offset 5: a wrapped end offset once
    // switched the density check off, and the index parsed with a gap in it.
    SegmentBuilder b = new SegmentBuilder(1, 0, 0);
    b.addEntry(0, batch(2));
    b.addEntry(2, batch(1));
    byte[] s = b.build().bytes();
    int f = s.length - SegmentFormat.FOOTER_SIZE;
    int indexLength = SegmentFormat.INDEX_FIXED + 2 * SegmentFormat.ENTRY_SIZE;
    int entry0 = f - indexLength + SegmentFormat.INDEX_FIXED;
    BigEndian.putLong(s, entry0 + SegmentFormat.E_BASE_OFFSET, Long.MAX_VALUE - 1);
    BigEndian.putLong(s, entry0 + SegmentFormat.ENTRY_SIZE + SegmentFormat.E_BASE_OFFSET, 5);
    BigEndian.putInt(
        s, f + SegmentFormat.F_INDEX_CRC, SegmentFormat.crc(s, f - indexLength, indexLength));
    BigEndian.putInt(
        s, f + SegmentFormat.F_FOOTER_CRC, SegmentFormat.crc(s, f, SegmentFormat.F_FOOTER_CRC));
    assertThatThrownBy(() -> SegmentReader.parseIndex(s, s.length))
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("segment index entry offsets overflow batch=0");
  }

  @Test
  void emptySegmentIsRefused() {
    assertThatThrownBy(() -> new SegmentBuilder(1, 0, 0).build())
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("at least one batch");
  }

  @Test
  void damagedBatchIsRefusedBeforeAnythingIsAdded() {
    byte[] bad = batch(2);
    bad[bad.length - 1] ^= 1;
    SegmentBuilder b = new SegmentBuilder(1, 0, 0);
    assertThatThrownBy(() -> b.addEntry(0, bad)).isInstanceOf(CorruptionException.class);
    org.assertj.core.api.Assertions.assertThat(b.batchCount()).isZero();
  }

  @Test
  void unsupportedVersionIsInvalidNotMisread() {
    SegmentBuilder b = new SegmentBuilder(1, 0, 0);
    b.addEntry(0, batch(1));
    byte[] s = b.build().bytes();
    BigEndian.putShort(s, SegmentFormat.H_VERSION, 3);
    BigEndian.putInt(s, SegmentFormat.H_CRC, SegmentFormat.crc(s, 0, SegmentFormat.H_CRC));
    assertThatThrownBy(() -> SegmentReader.parse(s))
        .isInstanceOf(LoamException.class)
        .isNotInstanceOf(CorruptionException.class)
        .hasMessageContaining("unsupported segment version=3");
  }
}
