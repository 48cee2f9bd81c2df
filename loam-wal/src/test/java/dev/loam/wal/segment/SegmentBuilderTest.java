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
    BigEndian.putShort(s, SegmentFormat.H_VERSION, 2);
    BigEndian.putInt(s, SegmentFormat.H_CRC, SegmentFormat.crc(s, 0, SegmentFormat.H_CRC));
    assertThatThrownBy(() -> SegmentReader.parse(s))
        .isInstanceOf(LoamException.class)
        .isNotInstanceOf(CorruptionException.class)
        .hasMessageContaining("unsupported segment version=2");
  }
}
