package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class RecordBatchPropertyTest {

  @Provide
  Arbitrary<List<RecordData>> records() {
    return BatchArbitraries.recordLists(20);
  }

  @Provide
  Arbitrary<List<RecordData>> smallRecords() {
    return BatchArbitraries.recordLists(3);
  }

  @Provide
  Arbitrary<BatchSettings> settings() {
    return BatchArbitraries.settings();
  }

  private static List<RecordData> expectedData(BatchSettings s, List<RecordData> in) {
    if (s.timestampType() == TimestampType.CREATE_TIME) {
      return in;
    }
    long max = in.stream().mapToLong(RecordData::timestamp).max().orElseThrow();
    List<RecordData> out = new ArrayList<>();
    for (RecordData r : in) {
      out.add(new RecordData(max, r.key(), r.value(), r.headers()));
    }
    return out;
  }

  @Property(tries = 300)
  void roundTrip(@ForAll("settings") BatchSettings s, @ForAll("records") List<RecordData> in) {
    byte[] bytes = RecordBatchEncoder.encode(s, in);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    RecordBatch b = RecordBatch.readFrom(buf);
    assertThat(buf.hasRemaining()).isFalse();
    assertThat(b.sizeInBytes()).isEqualTo(bytes.length);
    assertThat(b.baseOffset()).isEqualTo(s.baseOffset());
    assertThat(b.recordCount()).isEqualTo(in.size());
    assertThat(b.lastOffset()).isEqualTo(s.baseOffset() + in.size() - 1);
    assertThat(b.compression()).isEqualTo(s.compression());
    assertThat(b.timestampType()).isEqualTo(s.timestampType());
    assertThat(b.producerId()).isEqualTo(s.producerId());
    assertThat(b.producerEpoch()).isEqualTo(s.producerEpoch());
    assertThat(b.baseSequence()).isEqualTo(s.baseSequence());
    assertThat(b.partitionLeaderEpoch()).isEqualTo(-1);
    assertThat(b.baseTimestamp()).isEqualTo(in.get(0).timestamp());
    List<Record> out = b.records();
    assertThat(out.stream().map(Record::toData).toList()).isEqualTo(expectedData(s, in));
    for (int i = 0; i < out.size(); i++) {
      assertThat(out.get(i).offset()).isEqualTo(s.baseOffset() + i);
    }
  }

  @Property(tries = 100)
  void concatenatedBatchesParseAll(
      @ForAll("settings") BatchSettings s,
      @ForAll("smallRecords") List<RecordData> a,
      @ForAll("smallRecords") List<RecordData> b) {
    byte[] x = RecordBatchEncoder.encode(s, a);
    byte[] y = RecordBatchEncoder.encode(s, b);
    byte[] both = new byte[x.length + y.length];
    System.arraycopy(x, 0, both, 0, x.length);
    System.arraycopy(y, 0, both, x.length, y.length);
    RecordBatches.setBaseOffset(both, x.length, 1000);
    List<RecordBatch> batches = RecordBatches.parseAll(ByteBuffer.wrap(both));
    assertThat(batches).hasSize(2);
    assertThat(batches.get(1).baseOffset()).isEqualTo(1000);
    assertThat(batches.get(1).records().get(0).offset()).isEqualTo(1000);
    // Every proper prefix of the concatenation is rejected, never silently shortened.
    for (int len = 0; len < both.length; len++) {
      if (len == 0 || len == x.length) {
        continue; // whole batches: valid by construction
      }
      ByteBuffer prefix = ByteBuffer.wrap(both, 0, len);
      assertThatThrownBy(() -> RecordBatches.parseAll(prefix))
          .isInstanceOf(CorruptionException.class);
    }
  }

  /**
   * Bytes 0-7 (baseOffset) and 12-15 (partitionLeaderEpoch) lie outside the batch CRC by Kafka's
   * design (record-batch-v2.md); inside a WAL object the chunk CRC covers them.
   */
  static boolean outsideCrc(int i) {
    return i < 8 || (i >= 12 && i < 16);
  }

  @Property(tries = 60)
  void everySingleByteCorruptionIsDetected(
      @ForAll("settings") BatchSettings s,
      @ForAll("smallRecords") List<RecordData> in,
      @ForAll byte mask) {
    byte flip = mask == 0 ? 1 : mask;
    byte[] bytes = RecordBatchEncoder.encode(s, in);
    for (int i = 0; i < bytes.length; i++) {
      if (outsideCrc(i)) {
        continue;
      }
      byte[] bad = bytes.clone();
      bad[i] ^= flip;
      int at = i;
      Throwable t = catchThrowable(() -> RecordBatch.readFrom(ByteBuffer.wrap(bad)).records());
      assertThat(t).as("flip at byte %d", at).isInstanceOf(CorruptionException.class);
    }
  }

  @Property(tries = 60)
  void everyTruncationIsDetected(
      @ForAll("settings") BatchSettings s, @ForAll("smallRecords") List<RecordData> in) {
    byte[] bytes = RecordBatchEncoder.encode(s, in);
    for (int len = 0; len < bytes.length; len++) {
      ByteBuffer prefix = ByteBuffer.wrap(bytes, 0, len);
      int at = len;
      Throwable t = catchThrowable(() -> RecordBatch.readFrom(prefix).records());
      assertThat(t).as("prefix %d", at).isInstanceOf(CorruptionException.class);
      assertThat(prefix.position()).isZero();
    }
  }

  @Property(tries = 50)
  void baseOffsetPatchKeepsBatchValid(
      @ForAll("smallRecords") List<RecordData> in, @ForAll long newBase) {
    byte[] bytes = RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), in);
    RecordBatches.setBaseOffset(bytes, 0, newBase);
    RecordBatch b = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
    assertThat(b.baseOffset()).isEqualTo(newBase);
    assertThat(b.records().get(0).offset()).isEqualTo(newBase);
  }
}
