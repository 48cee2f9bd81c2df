package dev.loam.wal.fuzz;

import static dev.loam.wal.fuzz.FuzzContract.valueOrTypedError;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Record;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.batch.TimestampType;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing of the RecordBatch v2 reader ({@link RecordBatch#readFrom} and {@link
 * RecordBatch#records}) under all five codecs. The first input byte is a mode: bit 0 repairs the
 * batch length and CRC-32C after mutation, so that the fuzzer explores the attributes, the codec
 * streams and the records section behind the checksum; without it the raw bytes are parsed.
 *
 * <p>Contract: a {@code CorruptionException} (kind CORRUPTION, buffer position unchanged) or a
 * batch whose records match its header, and records that re-encode to the same records; the bytes
 * read are never changed.
 */
class RecordBatchFuzzTest {
  private static final Set<LoamException.Kind> CORRUPTION =
      EnumSet.of(LoamException.Kind.CORRUPTION);

  @FuzzTest
  void readFromAndRecords(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0) {
      repair(bytes);
    }
    byte[] stored = bytes.clone();
    try {
      check(bytes);
    } finally {
      // Readers are views: they never change the bytes they read.
      assertThat(bytes).as("input after parsing").isEqualTo(stored);
    }
  }

  private static void check(byte[] bytes) {
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    RecordBatch b = valueOrTypedError(CORRUPTION, () -> RecordBatch.readFrom(buf));
    if (b == null) {
      assertThat(buf.position()).as("position after a refused batch").isZero();
      return;
    }
    assertThat(b.sizeInBytes()).isBetween(RecordBatches.HEADER_SIZE, bytes.length);
    assertThat(buf.position()).isEqualTo(b.sizeInBytes());
    // Header accessors never fail on a validated batch.
    assertThat(b.toString()).isNotEmpty();
    b.lastSequence();
    b.isControl();
    b.hasDeleteHorizon();
    List<Record> records = valueOrTypedError(CORRUPTION, b::records);
    if (records == null) {
      return;
    }
    assertThat(records).hasSize(b.recordCount());
    // Offsets are baseOffset + offsetDelta (two's complement, as in Kafka): compare the deltas.
    long previous = -1;
    for (Record r : records) {
      long delta = r.offset() - b.baseOffset();
      assertThat(delta).isGreaterThan(previous).isLessThanOrEqualTo(b.lastOffsetDelta());
      previous = delta;
    }
    roundTrip(b, records);
  }

  /** Records a producer could send again re-encode, with the batch's settings, to themselves. */
  private static void roundTrip(RecordBatch b, List<Record> records) {
    if (records.isEmpty()
        || records.stream().anyMatch(r -> r.timestamp() < 0 && r.timestamp() != -1)) {
      return; // the encoder refuses these (as Kafka's producer does)
    }
    List<RecordData> data = records.stream().map(Record::toData).toList();
    BatchSettings s =
        new BatchSettings(
            b.baseOffset(),
            b.compression(),
            b.timestampType(),
            b.producerId(),
            b.producerEpoch(),
            b.baseSequence());
    RecordBatch again = RecordBatch.readFrom(ByteBuffer.wrap(RecordBatchEncoder.encode(s, data)));
    assertThat(again.compression()).isEqualTo(b.compression());
    List<RecordData> back = again.records().stream().map(Record::toData).toList();
    if (b.timestampType() == TimestampType.LOG_APPEND_TIME) {
      assertThat(back).allMatch(r -> r.timestamp() == b.maxTimestamp());
    }
    assertThat(back).isEqualTo(data);
  }

  /** Sets batchLength to the input's length and recomputes the CRC-32C (attributes to the end). */
  private static void repair(byte[] b) {
    if (b.length < RecordBatches.HEADER_SIZE) {
      return;
    }
    int length = b.length - 12;
    b[8] = (byte) (length >>> 24);
    b[9] = (byte) (length >>> 16);
    b[10] = (byte) (length >>> 8);
    b[11] = (byte) length;
    FuzzContract.putCrc(b, 17, 21, b.length - 21);
  }
}
