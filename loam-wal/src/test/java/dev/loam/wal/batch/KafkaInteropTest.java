package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Byte compatibility with kafka-clients 4.3.1 in both directions. */
public class KafkaInteropTest {

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A mix of the cases that matter: headers, null key, null value, empty arrays. */
  static List<RecordData> sample() {
    return List.of(
        new RecordData(1_700_000_000_000L, b("k1"), b("v1"), List.of()),
        new RecordData(
            1_700_000_000_500L,
            null,
            b("no key"),
            List.of(new Header("h1", b("x")), new Header("h-null", null))),
        new RecordData(1_699_999_999_000L, b("tombstone"), null, List.of()),
        new RecordData(
            1_700_000_000_100L, new byte[0], new byte[0], List.of(new Header("é€", new byte[0]))),
        new RecordData(-1L, b("no-ts"), b("v"), List.of()));
  }

  static org.apache.kafka.common.compress.Compression kafkaCompression(Compression c) {
    return switch (c) {
      case NONE -> org.apache.kafka.common.compress.Compression.NONE;
      case ZSTD -> org.apache.kafka.common.compress.Compression.zstd().build();
      case GZIP -> org.apache.kafka.common.compress.Compression.gzip().build();
      case SNAPPY -> org.apache.kafka.common.compress.Compression.snappy().build();
      case LZ4 -> org.apache.kafka.common.compress.Compression.lz4().build();
    };
  }

  public static byte[] kafkaEncode(BatchSettings s, List<RecordData> records) {
    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    org.apache.kafka.common.record.TimestampType tt =
        s.timestampType() == TimestampType.CREATE_TIME
            ? org.apache.kafka.common.record.TimestampType.CREATE_TIME
            : org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME;
    MemoryRecordsBuilder builder =
        MemoryRecords.builder(
            buf,
            (byte) 2,
            kafkaCompression(s.compression()),
            tt,
            s.baseOffset(),
            1_800_000_000_000L, // logAppendTime, used only for LOG_APPEND_TIME
            s.producerId(),
            s.producerEpoch(),
            s.baseSequence());
    for (RecordData r : records) {
      org.apache.kafka.common.header.Header[] hs =
          r.headers().stream()
              .map(h -> new RecordHeader(h.key(), h.value()))
              .toArray(org.apache.kafka.common.header.Header[]::new);
      builder.append(r.timestamp(), r.key(), r.value(), hs);
    }
    ByteBuffer out = builder.build().buffer();
    byte[] bytes = new byte[out.remaining()];
    out.get(bytes);
    return bytes;
  }

  static List<RecordData> kafkaDecode(byte[] bytes) {
    List<RecordData> out = new ArrayList<>();
    int batches = 0;
    for (MutableRecordBatch batch :
        MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()) {
      batch.ensureValid();
      batches++;
      for (org.apache.kafka.common.record.internal.Record r : batch) {
        r.ensureValid();
        List<Header> hs = new ArrayList<>();
        for (org.apache.kafka.common.header.Header h : r.headers()) {
          hs.add(new Header(h.key(), h.value()));
        }
        out.add(new RecordData(r.timestamp(), bytesOf(r.key()), bytesOf(r.value()), hs));
      }
    }
    assertThat(batches).isEqualTo(1);
    return out;
  }

  static byte[] bytesOf(ByteBuffer b) {
    if (b == null) {
      return null;
    }
    byte[] a = new byte[b.remaining()];
    b.duplicate().get(a);
    return a;
  }

  static BatchSettings idempotent(Compression c) {
    return new BatchSettings(42L, c, TimestampType.CREATE_TIME, 123_456L, (short) 7, 1000);
  }

  @Test
  void noneEncodingIsByteIdenticalToKafka() {
    for (BatchSettings s :
        List.of(BatchSettings.plain(Compression.NONE), idempotent(Compression.NONE))) {
      assertThat(RecordBatchEncoder.encode(s, sample())).isEqualTo(kafkaEncode(s, sample()));
    }
    List<RecordData> one = List.of(RecordData.of(5L, null, null));
    assertThat(RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), one))
        .isEqualTo(kafkaEncode(BatchSettings.plain(Compression.NONE), one));
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkaDecodesOurBatches(Compression c) {
    byte[] ours = RecordBatchEncoder.encode(idempotent(c), sample());
    assertThat(kafkaDecode(ours)).isEqualTo(sample());
    MutableRecordBatch batch =
        MemoryRecords.readableRecords(ByteBuffer.wrap(ours)).batches().iterator().next();
    assertThat(batch.baseOffset()).isEqualTo(42L);
    assertThat(batch.lastOffset()).isEqualTo(46L);
    assertThat(batch.producerId()).isEqualTo(123_456L);
    assertThat(batch.producerEpoch()).isEqualTo((short) 7);
    assertThat(batch.baseSequence()).isEqualTo(1000);
    assertThat(batch.lastSequence()).isEqualTo(1004);
    assertThat(batch.partitionLeaderEpoch()).isEqualTo(-1);
    assertThat(batch.maxTimestamp()).isEqualTo(1_700_000_000_500L);
    assertThat((int) batch.compressionType().id).isEqualTo(c.code());
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void weDecodeKafkaBatches(Compression c) {
    byte[] theirs = kafkaEncode(idempotent(c), sample());
    ByteBuffer buf = ByteBuffer.wrap(theirs);
    RecordBatch batch = RecordBatch.readFrom(buf);
    assertThat(buf.hasRemaining()).isFalse();
    assertThat(batch.compression()).isEqualTo(c);
    assertThat(batch.baseOffset()).isEqualTo(42L);
    assertThat(batch.lastSequence()).isEqualTo(1004);
    assertThat(batch.records().stream().map(Record::toData).toList()).isEqualTo(sample());
    assertThat(batch.records().get(4).offset()).isEqualTo(46L);
  }

  @Test
  void logAppendTimeRecordsTakeMaxTimestamp() {
    BatchSettings s =
        new BatchSettings(0, Compression.NONE, TimestampType.LOG_APPEND_TIME, -1, (short) -1, -1);
    RecordBatch batch = RecordBatch.readFrom(ByteBuffer.wrap(kafkaEncode(s, sample())));
    assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
    assertThat(batch.maxTimestamp()).isEqualTo(1_800_000_000_000L);
    assertThat(batch.records())
        .allSatisfy(r -> assertThat(r.timestamp()).isEqualTo(1_800_000_000_000L));
  }
}
