package dev.loam.wal.batch;

import static dev.loam.wal.batch.KafkaInteropTest.b;
import static dev.loam.wal.batch.KafkaInteropTest.kafkaDecode;
import static dev.loam.wal.batch.KafkaInteropTest.kafkaEncode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loam.error.CorruptionException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4FrameOutputStream.BLOCKSIZE;
import net.jpountz.lz4.LZ4FrameOutputStream.FLG;
import net.jpountz.xxhash.XXHashFactory;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.utils.ByteBufferOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.xerial.snappy.Snappy;

/**
 * Every Kafka codec in both directions, with kafka-clients 4.3.1 as the oracle: batches Kafka
 * builds decode here to exactly Kafka's records, batches Loam builds decode in Kafka, and the
 * stream variants Kafka's readers accept from other clients (raw snappy, concatenated snappy
 * streams, LZ4 frames with checksums, content size or large blocks) decode here too.
 */
class KafkaCodecInteropTest {

  /**
   * Enough records to span many 32 KiB snappy chunks and 64 KiB lz4 blocks, with every shape a
   * record takes: null and empty keys and values, headers (null values, non-ASCII keys), repeated
   * and random payloads, timestamps out of order and -1.
   */
  static List<RecordData> many() {
    Random rnd = new Random(7);
    List<RecordData> out = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      long ts = i % 97 == 0 ? -1L : 1_700_000_000_000L + i * 3L - (i % 5) * 10L;
      byte[] key = i % 7 == 0 ? null : i % 13 == 0 ? new byte[0] : b("key-" + i);
      byte[] value;
      if (i % 11 == 0) {
        value = null;
      } else if (i % 5 == 0) {
        value = new byte[0];
      } else if (i % 3 == 0) {
        value = new byte[rnd.nextInt(400)];
        rnd.nextBytes(value);
      } else {
        value = b("value " + i + " ".repeat(i % 50) + "payload".repeat(i % 20));
      }
      List<Header> headers =
          i % 4 == 0
              ? List.of(new Header("trace-" + (i % 3), b("t" + i)), new Header("é€", null))
              : List.of();
      out.add(new RecordData(ts, key, value, headers));
    }
    return out;
  }

  static BatchSettings settings(Compression c, TimestampType t) {
    return new BatchSettings(1_000L, c, t, 77L, (short) 3, 500);
  }

  static List<RecordData> decode(byte[] batch) {
    ByteBuffer buf = ByteBuffer.wrap(batch);
    RecordBatch rb = RecordBatch.readFrom(buf);
    assertThat(buf.hasRemaining()).isFalse();
    return rb.records().stream().map(Record::toData).toList();
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void kafkaBatchesOfEveryCodecDecodeToKafkasRecords(Compression c) {
    for (TimestampType t : TimestampType.values()) {
      for (List<RecordData> in : List.of(KafkaInteropTest.sample(), many())) {
        byte[] theirs = kafkaEncode(settings(c, t), in);
        RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(theirs));
        assertThat(rb.compression()).isEqualTo(c);
        List<Record> ours = rb.records();
        // Kafka's own reading of its batch is the expected answer (LOG_APPEND_TIME included).
        assertThat(ours.stream().map(Record::toData).toList()).isEqualTo(kafkaDecode(theirs));
        if (t == TimestampType.CREATE_TIME) {
          assertThat(ours.stream().map(Record::toData).toList()).isEqualTo(in);
        }
        for (int i = 0; i < ours.size(); i++) {
          assertThat(ours.get(i).offset()).isEqualTo(1_000L + i);
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void loamBatchesOfEveryCodecDecodeInKafka(Compression c) {
    List<RecordData> in = many();
    byte[] ours = RecordBatchEncoder.encode(settings(c, TimestampType.CREATE_TIME), in);
    assertThat(kafkaDecode(ours)).isEqualTo(in);
    MutableRecordBatch kb =
        MemoryRecords.readableRecords(ByteBuffer.wrap(ours)).batches().iterator().next();
    assertThat((int) kb.compressionType().id).isEqualTo(c.code());
    assertThat(kb.lastOffset()).isEqualTo(1_000L + in.size() - 1);
    assertThat(decode(ours)).isEqualTo(in);
  }

  /** Loam writes snappy and lz4 with the stream settings Kafka uses, so the bytes match. */
  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"SNAPPY", "LZ4"})
  void snappyAndLz4BatchesAreByteIdenticalToKafkas(Compression c) {
    for (List<RecordData> in : List.of(KafkaInteropTest.sample(), many())) {
      BatchSettings s = settings(c, TimestampType.CREATE_TIME);
      assertThat(RecordBatchEncoder.encode(s, in)).isEqualTo(kafkaEncode(s, in));
    }
  }

  /** Kafka's own compressing stream, outside any batch. */
  static byte[] kafkaStream(Compression c, byte[] data) throws IOException {
    ByteBufferOutputStream buf = new ByteBufferOutputStream(1024);
    try (OutputStream out = KafkaInteropTest.kafkaCompression(c).wrapForOutput(buf, (byte) 2)) {
      out.write(data);
    }
    ByteBuffer b = buf.buffer().flip();
    byte[] bytes = new byte[b.remaining()];
    b.get(bytes);
    return bytes;
  }

  /**
   * Kafka's streams at the sizes where framing changes (empty, one byte, around one 64 KiB lz4
   * block, many 32 KiB snappy chunks), compressible and not (lz4 then stores blocks raw): each
   * decodes to its input, and Loam's encoder writes the same bytes.
   */
  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void kafkasStreamsDecodeAtEverySize(Compression c) throws IOException {
    Random rnd = new Random(11);
    for (int size : new int[] {0, 1, 100, 32_768, 65_535, 65_536, 65_537, 300_000}) {
      for (boolean compressible : new boolean[] {true, false}) {
        byte[] data = new byte[size];
        if (compressible) {
          for (int i = 0; i < size; i++) {
            data[i] = (byte) (i % 7);
          }
        } else {
          rnd.nextBytes(data);
        }
        byte[] theirs = kafkaStream(c, data);
        ByteBuffer out = Codecs.decompress(c, ByteBuffer.wrap(theirs), size, "at position=0");
        byte[] back = new byte[out.remaining()];
        out.get(back);
        assertThat(back).as("size %d compressible %s", size, compressible).isEqualTo(data);
        if (c == Compression.SNAPPY || c == Compression.LZ4) {
          assertThat(Codecs.compress(c, data, size)).isEqualTo(theirs);
        }
      }
    }
  }

  /** snappy-java's reader, and so Kafka, takes a section that is one raw snappy block. */
  @Test
  void rawSnappySectionsDecodeAsInKafka() throws IOException {
    List<RecordData> in = many();
    byte[] plain =
        RecordBatchEncoder.encode(settings(Compression.NONE, TimestampType.CREATE_TIME), in);
    byte[] raw = Snappy.compress(BatchArbitraries.section(plain));
    byte[] batch = BatchArbitraries.withSection(plain, Compression.SNAPPY, raw);
    assertThat(kafkaDecode(batch)).isEqualTo(in);
    assertThat(decode(batch)).isEqualTo(in);
  }

  /** Two xerial streams back to back, as a writer appending to a stream may leave them. */
  @Test
  void concatenatedSnappyStreamsDecodeAsInKafka() {
    List<RecordData> in = many();
    byte[] plain =
        RecordBatchEncoder.encode(settings(Compression.NONE, TimestampType.CREATE_TIME), in);
    byte[] section = BatchArbitraries.section(plain);
    int cut = section.length / 3;
    byte[] first = XerialSnappy.compress(section, cut);
    byte[] rest = Arrays.copyOfRange(section, cut, section.length);
    byte[] second = XerialSnappy.compress(rest, rest.length);
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    byte[] batch = BatchArbitraries.withSection(plain, Compression.SNAPPY, both);
    assertThat(kafkaDecode(batch)).isEqualTo(in);
    assertThat(decode(batch)).isEqualTo(in);
  }

  static byte[] lz4Frame(byte[] data, BLOCKSIZE size, long knownSize, FLG.Bits... bits)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (LZ4FrameOutputStream s = new LZ4FrameOutputStream(out, size, knownSize, bits)) {
      s.write(data);
    }
    return out.toByteArray();
  }

  /**
   * Frames other clients write and Kafka's reader accepts: block checksums, content checksum,
   * content size, and block sizes up to 4 MiB.
   */
  @Test
  void lz4FramesWithOptionalFieldsDecodeAsInKafka() throws IOException {
    List<RecordData> in = many();
    byte[] plain =
        RecordBatchEncoder.encode(settings(Compression.NONE, TimestampType.CREATE_TIME), in);
    byte[] section = BatchArbitraries.section(plain);
    List<byte[]> frames =
        List.of(
            lz4Frame(
                section,
                BLOCKSIZE.SIZE_64KB,
                -1,
                FLG.Bits.BLOCK_INDEPENDENCE,
                FLG.Bits.BLOCK_CHECKSUM),
            lz4Frame(
                section,
                BLOCKSIZE.SIZE_256KB,
                -1,
                FLG.Bits.BLOCK_INDEPENDENCE,
                FLG.Bits.CONTENT_CHECKSUM),
            lz4Frame(
                section,
                BLOCKSIZE.SIZE_1MB,
                section.length,
                FLG.Bits.BLOCK_INDEPENDENCE,
                FLG.Bits.CONTENT_SIZE),
            lz4Frame(
                section,
                BLOCKSIZE.SIZE_4MB,
                section.length,
                FLG.Bits.BLOCK_INDEPENDENCE,
                FLG.Bits.CONTENT_SIZE,
                FLG.Bits.CONTENT_CHECKSUM,
                FLG.Bits.BLOCK_CHECKSUM));
    for (byte[] frame : frames) {
      byte[] batch = BatchArbitraries.withSection(plain, Compression.LZ4, frame);
      assertThat(kafkaDecode(batch)).isEqualTo(in);
      assertThat(decode(batch)).isEqualTo(in);
    }
  }

  /** Dependent blocks need the previous block as dictionary; Kafka refuses them, and so do we. */
  @Test
  void lz4DependentBlocksAreCorruptionAsInKafka() {
    byte[] batch =
        RecordBatchEncoder.encode(settings(Compression.LZ4, TimestampType.CREATE_TIME), many());
    byte[] frame = BatchArbitraries.section(batch);
    frame[4] &= ~0x20; // FLG: block independence off
    frame[6] = (byte) (XXHashFactory.safeInstance().hash32().hash(frame, 4, 2, 0) >> 8);
    byte[] forged = BatchArbitraries.withSection(batch, Compression.LZ4, frame);
    assertThatThrownBy(() -> kafkaDecode(forged))
        .isInstanceOf(org.apache.kafka.common.KafkaException.class)
        .rootCause()
        .hasMessageContaining("Dependent block stream is unsupported");
    assertThat(catchThrowableOfType(CorruptionException.class, () -> decode(forged)))
        .hasMessageContaining("codec=lz4");
  }

  /**
   * Kafka's reader stops at the frame's end mark and ignores what follows; Loam treats bytes after
   * the one frame a batch holds as corruption, since no writer puts them there.
   */
  @Test
  void bytesAfterTheLz4FrameAreCorruption() {
    byte[] batch =
        RecordBatchEncoder.encode(settings(Compression.LZ4, TimestampType.CREATE_TIME), many());
    byte[] frame = BatchArbitraries.section(batch);
    byte[] longer = Arrays.copyOf(frame, frame.length + 3);
    byte[] forged = BatchArbitraries.withSection(batch, Compression.LZ4, longer);
    assertThat(catchThrowableOfType(CorruptionException.class, () -> decode(forged)))
        .hasMessageContaining("trailing bytes remaining=3")
        .hasMessageContaining("codec=lz4");
  }
}
