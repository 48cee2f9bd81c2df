package dev.loam.api;

import static dev.loam.api.LoamNodeTest.await;
import static dev.loam.api.LoamNodeTest.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import dev.loam.testing.TestCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-stream and per-append compression (docs/formats/compression.md "Which codec Loam writes"):
 * the stream's codec is stored and described, an append's own codec wins over it, every codec's
 * batches are read back by Loam's fetch, and kafka-clients (the oracle for the bytes) decodes the
 * stored batches with the codec named and the same records.
 */
class StreamCompressionTest {
  @TempDir Path dir;
  TestCluster cluster;
  Log log;

  @BeforeEach
  void setUp() {
    cluster = new TestCluster(dir.resolve("meta"));
    log = cluster.start("n1", TestCluster.FAST).log();
    log.createNamespace("ns").join();
  }

  @AfterEach
  void tearDown() {
    cluster.close();
  }

  /** JSON log lines like the bench's: repetitive keys, varying ids. */
  private static List<AppendRecord> jsonRecords(Random rnd, int n) {
    List<AppendRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String json =
          "{\"ts\":\"2026-12-01T16:00:"
              + (10 + rnd.nextInt(50))
              + "Z\",\"level\":\"INFO\",\"service\":\"checkout\",\"trace_id\":\""
              + Long.toHexString(rnd.nextLong())
              + "\",\"msg\":\"order accepted\",\"amount\":"
              + rnd.nextInt(10_000)
              + "}";
      out.add(
          rnd.nextBoolean()
              ? AppendRecord.of("k" + rnd.nextInt(5), json)
              : AppendRecord.of(null, json));
    }
    return out;
  }

  /** kafka-clients' reading of the partition's stored batches. */
  private List<MutableRecordBatch> kafkaBatches(String stream) {
    ByteBuffer b = log.fetchBatches("ns", stream, 0, 0, 64 << 20, Duration.ZERO).join().batches();
    List<MutableRecordBatch> out = new ArrayList<>();
    for (MutableRecordBatch batch : MemoryRecords.readableRecords(b.duplicate()).batches()) {
      batch.ensureValid(); // the CRC-32C over the compressed records
      out.add(batch);
    }
    return out;
  }

  private static List<String> values(List<MutableRecordBatch> batches) {
    List<String> out = new ArrayList<>();
    for (MutableRecordBatch batch : batches) {
      for (Record r : batch) {
        byte[] v = new byte[r.valueSize()];
        r.value().get(v);
        out.add(new String(v, StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  @Test
  void eachStreamCodecIsStoredDescribedAndReadBackByLoamAndKafkaClients() throws Exception {
    Random rnd = new Random(42);
    for (Compression c : Compression.values()) {
      String stream = "s-" + c.wireName();
      StreamDescription d =
          await(log.createStream("ns", stream, StreamSpec.standard(1).withCompression(c)));
      assertThat(d.spec().compression()).isEqualTo(c);
      assertThat(await(log.describeStream("ns", stream)).spec().compression()).isEqualTo(c);
      List<AppendRecord> records = jsonRecords(rnd, 200);
      await(log.append("ns", stream, records));
      List<String> expected =
          records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
      assertThat(readAll(log, "ns", stream, 0))
          .extracting(FetchedRecord::valueAsString)
          .as(c.name())
          .isEqualTo(expected);
      List<MutableRecordBatch> batches = kafkaBatches(stream);
      assertThat(batches)
          .extracting(MutableRecordBatch::compressionType)
          .as(c.name())
          .containsOnly(CompressionType.forName(c.wireName()));
      assertThat(values(batches)).as(c.name()).isEqualTo(expected);
      int stored = batches.stream().mapToInt(MutableRecordBatch::sizeInBytes).sum();
      int raw = expected.stream().mapToInt(String::length).sum();
      if (c != Compression.NONE) {
        assertThat(stored).as(c.name() + " compresses JSON").isLessThan(raw / 2);
      } else {
        assertThat(stored).isGreaterThan(raw);
      }
    }
  }

  @Test
  void anAppendsOwnCodecWinsOverTheStreams() throws Exception {
    await(log.createStream("ns", "z", StreamSpec.standard(1).withCompression(Compression.ZSTD)));
    Random rnd = new Random(7);
    await(log.append("ns", "z", jsonRecords(rnd, 20)));
    await(log.append("ns", "z", jsonRecords(rnd, 20), null, Compression.NONE));
    await(log.append("ns", "z", jsonRecords(rnd, 20), null, Compression.LZ4));
    ProducerIdentity p = await(log.allocateProducerId());
    await(log.append("ns", "z", jsonRecords(rnd, 20).subList(0, 1), p, Compression.GZIP));
    assertThat(kafkaBatches("z"))
        .extracting(MutableRecordBatch::compressionType)
        .containsExactly(
            CompressionType.ZSTD, CompressionType.NONE, CompressionType.LZ4, CompressionType.GZIP);
    assertThat(readAll(log, "ns", "z", 0)).hasSize(61);
  }

  @Test
  void randomRecordsRoundTripUnderEveryCodec() throws Exception {
    await(log.createStream("ns", "r", StreamSpec.standard(1)));
    Random rnd = new Random(20261201);
    List<String> expected = new ArrayList<>();
    List<CompressionType> codecs = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      Compression c = Compression.values()[rnd.nextInt(Compression.values().length)];
      List<AppendRecord> records = new ArrayList<>();
      for (int j = 0, n = 1 + rnd.nextInt(30); j < n; j++) {
        byte[] v = new byte[rnd.nextInt(3000)];
        // Half random bytes (incompressible), half runs (very compressible).
        if (rnd.nextBoolean()) {
          rnd.nextBytes(v);
        } else {
          java.util.Arrays.fill(v, (byte) ('a' + rnd.nextInt(26)));
        }
        String s = java.util.Base64.getEncoder().encodeToString(v);
        records.add(AppendRecord.of(null, s));
        expected.add(s);
      }
      await(log.append("ns", "r", records, null, c));
      codecs.add(CompressionType.forName(c.wireName()));
    }
    assertThat(readAll(log, "ns", "r", 0))
        .extracting(FetchedRecord::valueAsString)
        .isEqualTo(expected);
    List<MutableRecordBatch> batches = kafkaBatches("r");
    assertThat(batches).extracting(MutableRecordBatch::compressionType).isEqualTo(codecs);
    assertThat(values(batches)).isEqualTo(expected);
  }

  @Test
  void anUnknownCodecNameIsATypedErrorNamingIt() {
    assertThatThrownBy(() -> Compression.fromWireName("brotli"))
        .isInstanceOf(LoamException.class)
        .hasMessageContaining("compression=brotli")
        .hasMessageContaining("zstd");
  }
}
