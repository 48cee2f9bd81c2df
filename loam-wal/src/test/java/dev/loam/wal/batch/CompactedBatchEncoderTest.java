package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentBuilder;
import dev.loam.wal.segment.SegmentReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Compacted batches keep their records' offsets (gaps allowed), may be empty, and carry Kafka's
 * delete horizon; kafka-clients reads them the same way (the oracle), and a compacted segment holds
 * them dense by offset span.
 */
class CompactedBatchEncoderTest {
  static byte[] b(String s) {
    return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  static Record rec(long offset, long ts, String k, String v) {
    return new Record(offset, ts, b(k), b(v), List.of(new Header("h", b("x"))));
  }

  @Test
  void recordsKeepTheirOffsetsAndTimestampsAcrossGaps() {
    List<Record> kept = List.of(rec(103, 5000, "a", "1"), rec(107, 4000, "b", null));
    for (Compression c : Compression.values()) {
      byte[] bytes =
          CompactedBatchEncoder.encode(100, 9, c, TimestampType.CREATE_TIME, 90_000, kept);
      RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
      assertThat(rb.baseOffset()).isEqualTo(100);
      assertThat(rb.lastOffsetDelta()).isEqualTo(9);
      assertThat(rb.recordCount()).isEqualTo(2);
      assertThat(rb.compression()).isEqualTo(c);
      assertThat(rb.hasDeleteHorizon()).isTrue();
      assertThat(CompactedBatchEncoder.deleteHorizon(rb)).isEqualTo(90_000);
      assertThat(rb.maxTimestamp()).isEqualTo(5000);
      assertThat(rb.producerId()).isEqualTo(-1);
      assertThat(rb.records()).containsExactlyElementsOf(kept);

      // The oracle: Kafka sees the same offsets, span, horizon and timestamps.
      MutableRecordBatch kb =
          MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches().iterator().next();
      kb.ensureValid();
      assertThat(kb.baseOffset()).isEqualTo(100);
      assertThat(kb.lastOffset()).isEqualTo(109);
      assertThat(kb.deleteHorizonMs()).hasValue(90_000L);
      List<Long> offsets = new ArrayList<>();
      List<Long> timestamps = new ArrayList<>();
      kb.forEach(
          r -> {
            offsets.add(r.offset());
            timestamps.add(r.timestamp());
          });
      assertThat(offsets).containsExactly(103L, 107L);
      assertThat(timestamps).containsExactly(5000L, 4000L);
    }
  }

  /**
   * What compaction does to a batch a Kafka client built: decode it, keep some records, re-encode
   * them with the source batch's codec. The codec survives and Kafka reads the kept records.
   */
  @Test
  void reEncodingKafkasBatchesKeepsTheirCodec() {
    for (Compression c : Compression.values()) {
      BatchSettings s = new BatchSettings(50, c, TimestampType.CREATE_TIME, -1, (short) -1, -1);
      byte[] theirs = KafkaInteropTest.kafkaEncode(s, KafkaCodecInteropTest.many());
      RecordBatch src = RecordBatch.readFrom(ByteBuffer.wrap(theirs));
      List<Record> kept = src.records().stream().filter(r -> r.offset() % 3 != 0).toList();
      byte[] bytes =
          CompactedBatchEncoder.encode(
              src.baseOffset(),
              src.lastOffsetDelta(),
              src.compression(),
              src.timestampType(),
              -1,
              kept);
      RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
      assertThat(rb.compression()).as("codec %s", c).isEqualTo(c);
      assertThat(rb.lastOffset()).isEqualTo(src.lastOffset());
      assertThat(rb.records()).containsExactlyElementsOf(kept);

      MutableRecordBatch kb =
          MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches().iterator().next();
      assertThat((int) kb.compressionType().id).isEqualTo(c.code());
      List<Long> offsets = new ArrayList<>();
      kb.forEach(r -> offsets.add(r.offset()));
      assertThat(offsets).containsExactlyElementsOf(kept.stream().map(Record::offset).toList());
      assertThat(KafkaInteropTest.kafkaDecode(bytes))
          .containsExactlyElementsOf(kept.stream().map(Record::toData).toList());
    }
  }

  @Test
  void anEmptyBatchKeepsItsSpan() {
    byte[] bytes =
        CompactedBatchEncoder.encode(
            7, 4, Compression.ZSTD, TimestampType.CREATE_TIME, -1, List.of());
    assertThat(bytes).hasSize(RecordBatches.HEADER_SIZE);
    RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
    assertThat(rb.recordCount()).isZero();
    assertThat(rb.lastOffset()).isEqualTo(11);
    assertThat(rb.hasDeleteHorizon()).isFalse();
    assertThat(rb.records()).isEmpty();
    MutableRecordBatch kb =
        MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches().iterator().next();
    kb.ensureValid();
    assertThat(kb.nextOffset()).isEqualTo(12);
    assertThat(kb.iterator().hasNext()).isFalse();
  }

  @Test
  void logAppendTimeRecordsShareTheBatchTime() {
    List<Record> kept = List.of(rec(0, 777, "a", "1"), rec(2, 777, "c", "3"));
    byte[] bytes =
        CompactedBatchEncoder.encode(
            0, 2, Compression.NONE, TimestampType.LOG_APPEND_TIME, 1_000_000, kept);
    RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(bytes));
    assertThat(rb.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(rb.records()).containsExactlyElementsOf(kept);
    assertThatThrownBy(
            () ->
                CompactedBatchEncoder.encode(
                    0,
                    2,
                    Compression.NONE,
                    TimestampType.LOG_APPEND_TIME,
                    -1,
                    List.of(rec(0, 1, "a", "1"), rec(1, 2, "b", "2"))))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("LOG_APPEND_TIME");
  }

  @Test
  void offsetsOutsideTheSpanOrOutOfOrderAreRefused() {
    assertThatThrownBy(
            () ->
                CompactedBatchEncoder.encode(
                    10,
                    3,
                    Compression.NONE,
                    TimestampType.CREATE_TIME,
                    -1,
                    List.of(rec(14, 1, "a", "1"))))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("offset=14");
    assertThatThrownBy(
            () ->
                CompactedBatchEncoder.encode(
                    10,
                    3,
                    Compression.NONE,
                    TimestampType.CREATE_TIME,
                    -1,
                    List.of(rec(12, 1, "a", "1"), rec(11, 1, "b", "2"))))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("out of order");
  }

  @Test
  void aCompactedSegmentIsDenseByOffsetSpanAndParses() {
    SegmentBuilder sb = new SegmentBuilder(1, 0, 100, true);
    sb.addEntry(
        100,
        CompactedBatchEncoder.encode(
            100,
            4,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            -1,
            List.of(rec(102, 1, "a", "1"))));
    sb.addEntry(
        105,
        CompactedBatchEncoder.encode(
            105, 9, Compression.NONE, TimestampType.CREATE_TIME, -1, List.of()));
    assertThat(sb.nextOffset()).isEqualTo(115);
    Segment seg = sb.build();
    Segment parsed = SegmentReader.parse(seg.bytes());
    assertThat(parsed.batches())
        .extracting(SegmentBatch::baseOffset, SegmentBatch::recordCount)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(100L, 5),
            org.assertj.core.groups.Tuple.tuple(105L, 10));
    assertThat(parsed.endOffset()).isEqualTo(115);
    // A plain segment of the same gapped batch would misstate its offsets: the builder refuses
    // the second entry there because it steps by record count.
    SegmentBuilder plain = new SegmentBuilder(1, 0, 100);
    plain.addEntry(
        100,
        CompactedBatchEncoder.encode(
            100,
            4,
            Compression.NONE,
            TimestampType.CREATE_TIME,
            -1,
            List.of(rec(102, 1, "a", "1"))));
    assertThat(plain.nextOffset()).isEqualTo(101);
  }

  @Test
  void theCompactedFlagIsWrittenAndRead() {
    SegmentBuilder sb = new SegmentBuilder(1, 0, 0, true);
    sb.addEntry(
        0,
        CompactedBatchEncoder.encode(
            0, 0, Compression.NONE, TimestampType.CREATE_TIME, -1, List.of(rec(0, 1, "k", "v"))));
    byte[] bytes = sb.build().bytes().clone();
    assertThat(bytes[7]).isEqualTo((byte) 1);
    assertThat(SegmentReader.parse(bytes).batches()).hasSize(1);
  }
}
