package dev.loam.wal.golden;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.ChunkIndexEntry;
import dev.loam.wal.object.KeyEncryptionKey;
import dev.loam.wal.object.KeyResolver;
import dev.loam.wal.object.WalHeader;
import dev.loam.wal.object.WalObject;
import dev.loam.wal.object.WalObjectReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Decodes the checked-in golden files; these must keep passing forever (v1 and v2 alike). */
class GoldenFilesTest {
  static byte[] golden(String name) throws IOException {
    try (InputStream in = GoldenFilesTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as("golden file %s", name).isNotNull();
      return in.readAllBytes();
    }
  }

  static void checkBatch(RecordBatch b, Compression c) {
    assertThat(b.compression()).isEqualTo(c);
    assertThat(b.baseOffset()).isEqualTo(100L);
    assertThat(b.lastOffset()).isEqualTo(102L);
    assertThat(b.producerId()).isEqualTo(4242L);
    assertThat(b.producerEpoch()).isEqualTo((short) 3);
    assertThat(b.baseSequence()).isEqualTo(17);
    assertThat(b.lastSequence()).isEqualTo(19);
    assertThat(b.baseTimestamp()).isEqualTo(1_718_000_000_000L);
    assertThat(b.maxTimestamp()).isEqualTo(1_718_000_000_250L);
    assertThat(b.partitionLeaderEpoch()).isEqualTo(-1);
    List<Record> rs = b.records();
    assertThat(rs.stream().map(Record::toData).toList()).isEqualTo(GoldenFixtures.records());
    assertThat(rs).extracting(Record::offset).containsExactly(100L, 101L, 102L);
  }

  @Test
  void recordBatchNone() throws IOException {
    byte[] bytes = golden(GoldenFixtures.BATCH_NONE);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    checkBatch(RecordBatch.readFrom(buf), Compression.NONE);
    assertThat(buf.hasRemaining()).isFalse();
    // The encoder is deterministic for NONE: today's output must equal the stored bytes.
    assertThat(GoldenFixtures.batchNone()).isEqualTo(bytes);
  }

  @Test
  void recordBatchZstdFromKafka() throws IOException {
    byte[] bytes = golden(GoldenFixtures.BATCH_ZSTD);
    checkBatch(RecordBatch.readFrom(ByteBuffer.wrap(bytes)), Compression.ZSTD);
  }

  @Test
  void recordBatchGzipFromKafka() throws IOException {
    byte[] bytes = golden(GoldenFixtures.BATCH_GZIP);
    checkBatch(RecordBatch.readFrom(ByteBuffer.wrap(bytes)), Compression.GZIP);
  }

  /** Kafka's xerial snappy stream; Loam writes the same stream, so its bytes match too. */
  @Test
  void recordBatchSnappyFromKafka() throws IOException {
    byte[] bytes = golden(GoldenFixtures.BATCH_SNAPPY);
    checkBatch(RecordBatch.readFrom(ByteBuffer.wrap(bytes)), Compression.SNAPPY);
    assertThat(
            RecordBatchEncoder.encode(
                GoldenFixtures.settings(Compression.SNAPPY), GoldenFixtures.records()))
        .isEqualTo(bytes);
  }

  /** Kafka's LZ4 frame; Loam writes the same frame, so its bytes match too. */
  @Test
  void recordBatchLz4FromKafka() throws IOException {
    byte[] bytes = golden(GoldenFixtures.BATCH_LZ4);
    checkBatch(RecordBatch.readFrom(ByteBuffer.wrap(bytes)), Compression.LZ4);
    assertThat(
            RecordBatchEncoder.encode(
                GoldenFixtures.settings(Compression.LZ4), GoldenFixtures.records()))
        .isEqualTo(bytes);
  }

  @Test
  void walObjectV1() throws IOException {
    byte[] bytes = golden(GoldenFixtures.WAL_V1);
    WalObject o = WalObjectReader.parse(bytes);
    assertThat(o.header())
        .isEqualTo(
            new WalHeader(1, DurabilityClass.EXPRESS, GoldenFixtures.ULID, GoldenFixtures.NODE_ID));
    assertThat(o.chunks())
        .extracting(
            ChunkIndexEntry::streamId, ChunkIndexEntry::partition, ChunkIndexEntry::encoding)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 0, ChunkEncoding.KAFKA),
            org.assertj.core.groups.Tuple.tuple(4L, 1, ChunkEncoding.ARROW),
            org.assertj.core.groups.Tuple.tuple(9L, 2, ChunkEncoding.KAFKA));
    List<RecordBatch> batches = RecordBatches.parseAll(o.chunk(0));
    assertThat(batches).hasSize(2);
    for (RecordBatch b : batches) {
      checkBatch(b, Compression.NONE);
    }
    ByteBuffer arrow = o.chunk(1);
    assertThat(arrow.remaining()).isEqualTo(3);
    assertThat(arrow.get(0)).isEqualTo((byte) 0xff);
    assertThat(RecordBatches.parseAll(o.chunk(2)).get(0).records().get(0).value())
        .isEqualTo(GoldenFixtures.utf8("z"));
    assertThat(GoldenFixtures.walObject().bytes()).isEqualTo(bytes);
  }

  /** v2: plain and sealed chunks side by side; the sealed ones open with the fixed keys only. */
  @Test
  void walObjectV2() throws IOException {
    byte[] bytes = golden(GoldenFixtures.WAL_V2);
    WalObject o = WalObjectReader.parse(bytes);
    assertThat(o.header())
        .isEqualTo(
            new WalHeader(
                2, DurabilityClass.STANDARD, GoldenFixtures.ULID, GoldenFixtures.NODE_ID));
    assertThat(o.chunks())
        .extracting(
            ChunkIndexEntry::streamId,
            ChunkIndexEntry::partition,
            ChunkIndexEntry::encoding,
            ChunkIndexEntry::sealed)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1L, 0, ChunkEncoding.KAFKA, false),
            org.assertj.core.groups.Tuple.tuple(5L, 0, ChunkEncoding.KAFKA, true),
            org.assertj.core.groups.Tuple.tuple(6L, 3, ChunkEncoding.KAFKA, true),
            org.assertj.core.groups.Tuple.tuple(8L, 1, ChunkEncoding.ARROW, false));
    KeyEncryptionKey k1 = GoldenFixtures.kek(1);
    KeyEncryptionKey k2 = GoldenFixtures.kek(2);
    KeyResolver keys =
        id -> {
          if (id.equals(k1.id())) {
            return k1;
          }
          if (id.equals(k2.id())) {
            return k2;
          }
          throw new AssertionError("unexpected key id " + id);
        };
    String key = GoldenFixtures.OBJECT_KEY_V2;
    List<RecordBatch> plain =
        RecordBatches.parseAll(
            WalObjectReader.openChunk(o.chunk(0), o.chunks().get(0), 0, key, keys));
    assertThat(plain).hasSize(2);
    plain.forEach(b -> checkBatch(b, Compression.NONE));
    List<RecordBatch> sealed =
        RecordBatches.parseAll(
            WalObjectReader.openChunk(o.chunk(1), o.chunks().get(1), 1, key, keys));
    assertThat(sealed).hasSize(1);
    checkBatch(sealed.get(0), Compression.NONE);
    // The sealed chunk's stored bytes do not contain its plaintext.
    byte[] stored = new byte[o.chunk(1).remaining()];
    o.chunk(1).get(stored);
    assertThat(new String(stored, java.nio.charset.StandardCharsets.ISO_8859_1))
        .doesNotContain("value-1")
        .contains(k1.id());
    assertThat(
            RecordBatches.parseAll(
                    WalObjectReader.openChunk(o.chunk(2), o.chunks().get(2), 2, key, keys))
                .get(0)
                .records()
                .get(0)
                .value())
        .isEqualTo(GoldenFixtures.utf8("z"));
    assertThat(WalObjectReader.openChunk(o.chunk(3), o.chunks().get(3), 3, key, keys).remaining())
        .isEqualTo(3);
    // Writing is deterministic given the keys and the random source.
    assertThat(GoldenFixtures.walObjectV2().bytes()).isEqualTo(bytes);
  }

  @Test
  void segmentV1() throws IOException {
    byte[] bytes = golden(GoldenFixtures.SEGMENT_V1);
    dev.loam.wal.segment.Segment s = dev.loam.wal.segment.SegmentReader.parse(bytes);
    assertThat(s.streamId()).isEqualTo(7L);
    assertThat(s.partition()).isEqualTo(3);
    assertThat(s.baseOffset()).isEqualTo(1000L);
    assertThat(s.batches())
        .extracting(
            dev.loam.wal.segment.SegmentBatch::baseOffset,
            dev.loam.wal.segment.SegmentBatch::recordCount,
            dev.loam.wal.segment.SegmentBatch::maxTimestamp)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1000L, 3, 1_718_000_000_250L),
            org.assertj.core.groups.Tuple.tuple(1003L, 3, 1_718_000_000_250L),
            org.assertj.core.groups.Tuple.tuple(1006L, 1, 5L));
    // Batches are verbatim apart from the patched baseOffset: same records, same Kafka CRC.
    List<RecordBatch> batches =
        RecordBatches.parseAll(
            ByteBuffer.wrap(
                bytes,
                dev.loam.wal.segment.SegmentReader.HEADER_SIZE,
                (int) s.dataEnd() - dev.loam.wal.segment.SegmentReader.HEADER_SIZE));
    assertThat(batches).extracting(RecordBatch::baseOffset).containsExactly(1000L, 1003L, 1006L);
    assertThat(batches.get(0).records().stream().map(Record::toData).toList())
        .isEqualTo(GoldenFixtures.records());
    assertThat(GoldenFixtures.segment().bytes()).isEqualTo(bytes);
  }

  @Test
  void segmentV2() throws IOException {
    byte[] bytes = golden(GoldenFixtures.SEGMENT_V2);
    dev.loam.wal.segment.Segment s =
        dev.loam.wal.segment.SegmentReader.parse(
            bytes, GoldenFixtures.SEGMENT_KEY_V2, id -> GoldenFixtures.kek(1));
    assertThat(s.streamId()).isEqualTo(7L);
    assertThat(s.partition()).isEqualTo(3);
    assertThat(s.batches())
        .extracting(
            dev.loam.wal.segment.SegmentBatch::baseOffset,
            dev.loam.wal.segment.SegmentBatch::recordCount,
            dev.loam.wal.segment.SegmentBatch::maxTimestamp)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1000L, 3, 1_718_000_000_250L),
            org.assertj.core.groups.Tuple.tuple(1003L, 3, 1_718_000_000_250L),
            org.assertj.core.groups.Tuple.tuple(1006L, 1, 5L));
    // Opened, the batches are the v1 golden's data region byte for byte.
    dev.loam.wal.segment.SegmentReader.SegmentTail t =
        dev.loam.wal.segment.SegmentReader.parseTail(bytes, bytes.length);
    assertThat(t.seal().keyId()).isEqualTo(GoldenFixtures.kek(1).id());
    byte[] plain =
        dev.loam.wal.segment.SealedSegment.open(
            GoldenFixtures.SEGMENT_KEY_V2,
            t.seal(),
            GoldenFixtures.kek(1),
            t.batches(),
            0,
            t.batches().size(),
            java.util.Arrays.copyOfRange(
                bytes, dev.loam.wal.segment.SegmentReader.HEADER_SIZE, (int) s.dataEnd()));
    byte[] v1 = golden(GoldenFixtures.SEGMENT_V1);
    assertThat(plain)
        .isEqualTo(
            java.util.Arrays.copyOfRange(
                v1,
                dev.loam.wal.segment.SegmentReader.HEADER_SIZE,
                (int) GoldenFixtures.segment().dataEnd()));
    assertThat(GoldenFixtures.segmentV2().bytes()).isEqualTo(bytes);
  }
}
