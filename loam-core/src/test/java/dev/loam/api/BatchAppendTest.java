package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.failure;
import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.error.LoamException.Kind;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batch-level log API the Kafka gateway is built on: client batches (built by kafka-clients,
 * the reference implementation of the format) are validated, stored verbatim and served back with
 * their assigned base offsets, and both APIs read what the other wrote.
 */
class BatchAppendTest {
  @TempDir Path dir;

  private LoamNode open() {
    return LoamNode.builder()
        .nodeId("n1")
        .dataDir(dir)
        .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(2)))
        .start();
  }

  private static Log withStream(LoamNode node) throws Exception {
    Log log = node.log();
    await(log.createNamespace("ns"));
    await(log.createStream("ns", "s", StreamSpec.standard(2)));
    return log;
  }

  private static SimpleRecord rec(long ts, String key, String value) {
    return new SimpleRecord(
        ts,
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value == null ? null : value.getBytes(StandardCharsets.UTF_8),
        new RecordHeader[] {new RecordHeader("h", "x".getBytes(StandardCharsets.UTF_8))});
  }

  private static ByteBuffer plain(Compression c, SimpleRecord... records) {
    return MemoryRecords.withRecords(c, records).buffer();
  }

  private static List<Record> kafkaRecords(ByteBuffer batches) {
    List<Record> out = new ArrayList<>();
    for (MutableRecordBatch b : MemoryRecords.readableRecords(batches.duplicate()).batches()) {
      b.ensureValid();
      b.forEach(out::add);
    }
    return out;
  }

  @Test
  void storesTheClientsBytesVerbatimAndServesThemWithTheAssignedBaseOffset() throws Exception {
    try (LoamNode node = open()) {
      Log log = withStream(node);
      for (Compression c :
          List.of(
              Compression.NONE,
              Compression.gzip().build(),
              Compression.snappy().build(),
              Compression.lz4().build(),
              Compression.zstd().build())) {
        ByteBuffer sent =
            plain(c, rec(1000, "a", "one"), rec(1001, null, "two"), rec(1002, "c", null));
        BatchAppendResult r = await(log.appendBatch("ns", "s", 1, sent.duplicate()));
        BatchFetchResult got =
            await(log.fetchBatches("ns", "s", 1, r.baseOffset(), 1 << 20, Duration.ZERO));
        MutableRecordBatch batch =
            MemoryRecords.readableRecords(got.batches().duplicate()).batches().iterator().next();
        batch.ensureValid();
        assertThat(batch.baseOffset()).isEqualTo(r.baseOffset());
        // Everything after the base offset is the client's bytes, untouched (same CRC).
        ByteBuffer stored = got.batches().duplicate();
        stored.limit(batch.sizeInBytes());
        assertThat(stored.position(8).slice()).isEqualTo(sent.duplicate().position(8).slice());
        List<Record> records = kafkaRecords(got.batches());
        assertThat(records).hasSize(3);
        assertThat(records.get(0).offset()).isEqualTo(r.baseOffset());
        assertThat(records.get(2).offset()).isEqualTo(r.baseOffset() + 2);
        assertThat(records.get(1).timestamp()).isEqualTo(1001);
        assertThat(records.get(1).hasKey()).isFalse();
        assertThat(records.get(2).hasValue()).isFalse();
        assertThat(records.get(0).headers()[0].key()).isEqualTo("h");
        // The record API reads what the batch API wrote.
        FetchResult rr = await(log.fetch("ns", "s", 1, r.baseOffset(), 1 << 20, Duration.ZERO));
        assertThat(rr.records().get(0).keyAsString()).isEqualTo("a");
        assertThat(rr.records().get(0).valueAsString()).isEqualTo("one");
        assertThat(rr.records().get(0).headers().get(0).key()).isEqualTo("h");
      }
    }
  }

  @Test
  void servesRecordsAppendedThroughTheRecordApiAsValidBatches() throws Exception {
    try (LoamNode node = open()) {
      Log log = withStream(node);
      await(log.append("ns", "s", List.of(AppendRecord.of("k", "v0").toPartition(0))));
      await(log.append("ns", "s", List.of(AppendRecord.of("k", "v1").toPartition(0))));
      await(log.append("ns", "s", List.of(AppendRecord.of("k", "v2").toPartition(0))));
      // From offset 1: the batch holding it and the later ones, not the first.
      BatchFetchResult got = await(log.fetchBatches("ns", "s", 0, 1, 1 << 20, Duration.ZERO));
      List<Record> records = kafkaRecords(got.batches());
      assertThat(records).extracting(Record::offset).containsExactly(1L, 2L);
      assertThat(got.nextOffset()).isEqualTo(3);
      assertThat(got.highWatermark()).isEqualTo(3);
      // At the high watermark: a long-poll that ends empty.
      BatchFetchResult empty =
          await(log.fetchBatches("ns", "s", 0, 3, 1 << 20, Duration.ofMillis(20)));
      assertThat(empty.batches().remaining()).isZero();
      assertThat(empty.nextOffset()).isEqualTo(3);
      assertThat(failure(log.fetchBatches("ns", "s", 0, 4, 1 << 20, Duration.ZERO)))
          .isInstanceOf(OffsetOutOfRangeException.class);
    }
  }

  @Test
  void aLongPollWakesWhenABatchIsCommitted() throws Exception {
    try (LoamNode node = open()) {
      Log log = withStream(node);
      var poll = log.fetchBatches("ns", "s", 0, 0, 1 << 20, Duration.ofSeconds(30));
      await(log.appendBatch("ns", "s", 0, plain(Compression.NONE, rec(5, "k", "v"))));
      assertThat(kafkaRecords(await(poll).batches())).hasSize(1);
    }
  }

  @Test
  void idempotentBatchesAreDedupedAndOrderedLikeKafka() throws Exception {
    try (LoamNode node = open()) {
      Log log = withStream(node);
      long pid = await(log.allocateProducerId()).producerId();
      ByteBuffer first = idempotent(pid, (short) 0, 0, "a", "b");
      BatchAppendResult a = await(log.appendBatch("ns", "s", 0, first.duplicate()));
      assertThat(a.duplicate()).isFalse();
      BatchAppendResult second =
          await(log.appendBatch("ns", "s", 0, idempotent(pid, (short) 0, 2, "c")));
      assertThat(second.baseOffset()).isEqualTo(a.baseOffset() + 2);
      // A retry of the first batch: its original offset, nothing appended.
      BatchAppendResult retry = await(log.appendBatch("ns", "s", 0, first.duplicate()));
      assertThat(retry.duplicate()).isTrue();
      assertThat(retry.baseOffset()).isEqualTo(a.baseOffset());
      // A gap in the sequence.
      assertThat(failure(log.appendBatch("ns", "s", 0, idempotent(pid, (short) 0, 7, "x"))))
          .isInstanceOf(OutOfOrderSequenceException.class);
      // A newer epoch at sequence 0 takes over; the old epoch is fenced.
      await(log.appendBatch("ns", "s", 0, idempotent(pid, (short) 1, 0, "y")));
      assertThat(failure(log.appendBatch("ns", "s", 0, idempotent(pid, (short) 0, 3, "z"))))
          .isInstanceOf(ProducerFencedException.class);
      assertThat(await(log.listOffset("ns", "s", 0, new OffsetSpec.Latest()))).isEqualTo(4);
    }
  }

  private static ByteBuffer idempotent(long pid, short epoch, int seq, String... values) {
    SimpleRecord[] recs = new SimpleRecord[values.length];
    for (int i = 0; i < values.length; i++) {
      recs[i] = rec(100 + i, "k", values[i]);
    }
    return MemoryRecords.withIdempotentRecords(Compression.NONE, pid, epoch, seq, recs).buffer();
  }

  @Test
  void refusesBadBatchesNamingTheFieldAndStoresNothing() throws Exception {
    try (LoamNode node = open()) {
      Log log = withStream(node);
      ByteBuffer good = plain(Compression.NONE, rec(1, "k", "v"), rec(2, "k", "w"));
      ByteBuffer badCrc = copy(good);
      badCrc.put(badCrc.limit() - 1, (byte) (badCrc.get(badCrc.limit() - 1) ^ 1));
      assertRefused(log, badCrc, "crc");
      ByteBuffer badMagic = copy(good);
      badMagic.put(16, (byte) 1);
      assertRefused(log, badMagic, "magic");
      assertRefused(log, copy(good).limit(good.limit() - 3), "batchLength");
      ByteBuffer two = ByteBuffer.allocate(good.remaining() * 2);
      two.put(good.duplicate()).put(good.duplicate()).flip();
      assertRefused(log, two, "exactly one record batch");
      ByteBuffer txn =
          MemoryRecords.withTransactionalRecords(
                  Compression.NONE, 5L, (short) 0, 0, rec(1, "k", "v"))
              .buffer();
      assertRefused(log, txn, "transactional");
      // Offset deltas that skip: a compacted-looking batch a producer never sends.
      ByteBuffer gap = ByteBuffer.allocate(1024);
      MemoryRecordsBuilder b =
          MemoryRecords.builder(gap, Compression.NONE, TimestampType.CREATE_TIME, 0L);
      b.appendWithOffset(0, rec(1, "k", "v"));
      b.appendWithOffset(5, rec(2, "k", "v"));
      assertRefused(log, b.build().buffer(), "lastOffsetDelta");
      assertThat(await(log.listOffset("ns", "s", 0, new OffsetSpec.Latest()))).isZero();
      assertThat(failure(log.appendBatch("ns", "s", 2, copy(good))).getMessage())
          .contains("partition out of range");
      assertThat(failure(log.appendBatch("ns", "nope", 0, copy(good))).kind())
          .isEqualTo(Kind.NOT_FOUND);
    }
  }

  private static void assertRefused(Log log, ByteBuffer batch, String field) {
    Throwable t = failure(log.appendBatch("ns", "s", 0, batch));
    assertThat(t).isInstanceOf(InvalidBatchException.class);
    assertThat(t.getMessage()).contains(field).contains("stream=ns/s partition=0");
  }

  private static ByteBuffer copy(ByteBuffer b) {
    ByteBuffer c = ByteBuffer.allocate(b.remaining());
    c.put(b.duplicate()).flip();
    return c;
  }
}
