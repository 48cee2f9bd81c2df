package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordBatchTest {
  static final List<RecordData> TWO =
      List.of(RecordData.of(10L, new byte[] {1}, new byte[] {2}), RecordData.of(12L, null, null));

  static byte[] plain() {
    return RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), TWO);
  }

  static CorruptionException corruption(byte[] bytes) {
    return org.assertj.core.api.Assertions.catchThrowableOfType(
        CorruptionException.class, () -> RecordBatch.readFrom(ByteBuffer.wrap(bytes)).records());
  }

  @Test
  void headerFields() {
    RecordBatch b = RecordBatch.readFrom(ByteBuffer.wrap(plain()));
    assertThat(b.baseTimestamp()).isEqualTo(10L);
    assertThat(b.maxTimestamp()).isEqualTo(12L);
    assertThat(b.lastOffsetDelta()).isEqualTo(1);
    assertThat(b.producerId()).isEqualTo(-1L);
    assertThat(b.lastSequence()).isEqualTo(-1);
    assertThat(b.isTransactional()).isFalse();
    assertThat(b.isControl()).isFalse();
    assertThat(b.bytes().isReadOnly()).isTrue();
    assertThat(b.bytes().remaining()).isEqualTo(b.sizeInBytes());
    assertThat(RecordBatches.HEADER_SIZE).isEqualTo(61);
  }

  @Test
  void lastSequenceWrapsLikeKafka() {
    BatchSettings s =
        new BatchSettings(
            0, Compression.NONE, TimestampType.CREATE_TIME, 5, (short) 0, Integer.MAX_VALUE);
    RecordBatch b = RecordBatch.readFrom(ByteBuffer.wrap(RecordBatchEncoder.encode(s, TWO)));
    assertThat(b.lastSequence()).isEqualTo(0);
  }

  @Test
  void crcMismatchNamesField() {
    byte[] bytes = plain();
    bytes[bytes.length - 1] ^= 1;
    assertThat(corruption(bytes))
        .hasMessageContaining("crc mismatch expected=")
        .hasMessageContaining("at position=0");
  }

  @Test
  void magicMismatchNamesField() {
    byte[] bytes = plain();
    bytes[16] = 1;
    assertThat(corruption(bytes)).hasMessageContaining("magic mismatch expected=2 actual=1");
  }

  @Test
  void batchLengthOutOfRangeNamesField() {
    byte[] bytes = plain();
    BigEndian.putInt(bytes, 8, bytes.length);
    assertThat(corruption(bytes)).hasMessageContaining("batchLength out of range");
  }

  @Test
  void truncatedHeaderNamesField() {
    assertThat(corruption(new byte[60]))
        .hasMessageContaining("truncated header need=61 remaining=60");
  }

  @Test
  void recordCountMismatchNamesField() {
    byte[] bytes = plain();
    BigEndian.putInt(bytes, 57, 3);
    BatchArbitraries.fixCrc(bytes);
    assertThat(corruption(bytes)).hasMessageContaining("recordCount mismatch expected=3 actual=2");
    BigEndian.putInt(bytes, 57, 1);
    BatchArbitraries.fixCrc(bytes);
    assertThat(corruption(bytes)).hasMessageContaining("trailing bytes");
  }

  @Test
  void recordLengthAndVarintErrorsNameField() {
    byte[] bytes = plain();
    bytes[61] = 0x7e; // first record's length varint: 63, beyond the section
    BatchArbitraries.fixCrc(bytes);
    assertThat(corruption(bytes)).hasMessageContaining("record length out of range length=63");
    byte[] tooLong = plain();
    for (int i = 61; i < 67; i++) {
      tooLong[i] = (byte) 0x80;
    }
    BatchArbitraries.fixCrc(tooLong);
    assertThat(corruption(tooLong)).hasMessageContaining("varint too long field=length");
  }

  @Test
  void unknownCompressionCodeIsCorruption() {
    byte[] bytes = plain();
    bytes[22] = 7;
    BatchArbitraries.fixCrc(bytes);
    assertThat(corruption(bytes)).hasMessageContaining("unknown compression code=7");
  }

  @Test
  void aCodecThatDoesNotMatchTheSectionIsCorruption() {
    for (Compression c :
        List.of(Compression.GZIP, Compression.SNAPPY, Compression.LZ4, Compression.ZSTD)) {
      byte[] bytes = plain();
      bytes[22] = (byte) c.code(); // a well-formed header over uncompressed records
      BatchArbitraries.fixCrc(bytes);
      RecordBatch b = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
      assertThat(b.compression()).isEqualTo(c);
      assertThatThrownBy(b::records).as("codec %s", c).isInstanceOf(CorruptionException.class);
    }
  }

  @Test
  void encoderRejectsBadInput() {
    assertThatThrownBy(
            () -> RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), List.of()))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(
            () ->
                RecordBatchEncoder.encode(
                    BatchSettings.plain(Compression.NONE), List.of(RecordData.of(-2L, null, null))))
        .hasMessageContaining("timestamp negative timestamp=-2 index=0");
  }

  @Test
  void corruptZstdPayloadIsCorruption() {
    byte[] bytes = RecordBatchEncoder.encode(BatchSettings.plain(Compression.ZSTD), TWO);
    bytes[61] ^= 0x55; // zstd frame magic
    BatchArbitraries.fixCrc(bytes);
    assertThat(corruption(bytes)).hasMessageContaining("codec=zstd");
  }

  @Test
  void setBaseOffsetChecksBounds() {
    assertThatThrownBy(() -> RecordBatches.setBaseOffset(new byte[70], 10, 1))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("batchStart=10");
  }

  @Test
  void valueRecordsCompareContents() {
    assertThat(new Header("a", new byte[] {1})).isEqualTo(new Header("a", new byte[] {1}));
    assertThat(new Header("a", new byte[] {1}).hashCode())
        .isEqualTo(new Header("a", new byte[] {1}).hashCode());
    assertThat(RecordData.of(1, new byte[] {1}, null))
        .isEqualTo(RecordData.of(1, new byte[] {1}, null));
    assertThat(new Record(1, 1, null, new byte[] {3}, null))
        .isEqualTo(new Record(1, 1, null, new byte[] {3}, List.of()));
  }
}
