package dev.loam.wal.fuzz;

import static dev.loam.wal.fuzz.FuzzContract.READER_KINDS;
import static dev.loam.wal.fuzz.FuzzContract.i32;
import static dev.loam.wal.fuzz.FuzzContract.i64;
import static dev.loam.wal.fuzz.FuzzContract.putCrc;
import static dev.loam.wal.fuzz.FuzzContract.valueOrTypedError;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBatch;
import dev.loam.wal.segment.SegmentBuilder;
import dev.loam.wal.segment.SegmentReader;
import dev.loam.wal.segment.SegmentReader.SegmentFooter;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

/**
 * Coverage-guided fuzzing of the segment v1 reader (docs/formats/segment-v1.md): the whole segment
 * ({@link SegmentReader#parse}) and the tail path (footer, then exactly the tail the footer asks
 * for). The first input byte is a mode: bit 0 recomputes every CRC-32C (each batch's Kafka CRC, the
 * data, index, header and footer CRCs) after mutation; bit 1 also sets each batch's batchLength to
 * its index entry's length, so that the fuzzer explores the structure behind the checksums.
 *
 * <p>Contract: CORRUPTION or INVALID (as documented), or a segment that the tail path agrees with,
 * that rebuilds byte for byte, and whose batches decode to records or CORRUPTION (an arrow
 * segment's frames are loam-arrow's to decode: it rebuilds from its index and column index); the
 * bytes read are never changed.
 */
class SegmentFuzzTest {
  private static final int FOOTER = SegmentReader.FOOTER_SIZE;
  private static final int HEADER = SegmentReader.HEADER_SIZE;

  @FuzzTest
  void parse(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0) {
      repair(bytes, (input[0] & 2) != 0);
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
    Segment s = valueOrTypedError(READER_KINDS, () -> SegmentReader.parse(bytes));
    List<SegmentBatch> tailIndex = viaTail(bytes);
    if (s == null) {
      return;
    }
    assertThat(tailIndex).isEqualTo(s.batches());
    assertThat(s.dataEnd()).isLessThanOrEqualTo(bytes.length - FOOTER);
    if (bytes[6] == 1) {
      // An arrow segment (arrow-batch-v1.md): its frames are loam-arrow's to verify; rebuilt from
      // the index's frame descriptions and its column index, it is the same bytes.
      SegmentReader.IndexRegion region = SegmentReader.parseIndexRegion(bytes, bytes.length);
      SegmentBuilder arrow = SegmentBuilder.arrow(s.streamId(), s.partition(), s.baseOffset());
      for (SegmentBatch b : s.batches()) {
        byte[] frame =
            Arrays.copyOfRange(bytes, (int) b.position(), (int) b.position() + b.length());
        arrow.addFrames(
            b.baseOffset(),
            frame,
            List.of(new SegmentBuilder.Frame(b.length(), b.recordCount(), b.maxTimestamp())));
      }
      assertThat(arrow.build(region.columnIndex()).bytes())
          .as("rebuilt arrow segment")
          .isEqualTo(bytes);
      return;
    }
    boolean compacted = bytes[7] == 1;
    SegmentBuilder rebuilt =
        new SegmentBuilder(s.streamId(), s.partition(), s.baseOffset(), compacted);
    for (SegmentBatch b : s.batches()) {
      byte[] batch = Arrays.copyOfRange(bytes, (int) b.position(), (int) b.position() + b.length());
      rebuilt.addEntry(b.baseOffset(), batch);
      RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(batch));
      valueOrTypedError(EnumSet.of(LoamException.Kind.CORRUPTION), rb::records);
    }
    assertThat(rebuilt.build().bytes()).as("rebuilt segment").isEqualTo(bytes);
  }

  /** Footer from the last bytes, then the index from exactly the tail the footer asks for. */
  private static List<SegmentBatch> viaTail(byte[] bytes) {
    byte[] last = Arrays.copyOfRange(bytes, Math.max(0, bytes.length - FOOTER), bytes.length);
    SegmentFooter f =
        valueOrTypedError(READER_KINDS, () -> SegmentReader.parseFooter(last, bytes.length));
    if (f == null) {
      return null;
    }
    long need = SegmentReader.requiredTailLength(f, bytes.length);
    assertThat(need).isBetween((long) FOOTER, (long) bytes.length - HEADER);
    byte[] tail = Arrays.copyOfRange(bytes, (int) (bytes.length - need), bytes.length);
    List<SegmentBatch> fromTail =
        valueOrTypedError(READER_KINDS, () -> SegmentReader.parseIndex(tail, bytes.length));
    List<SegmentBatch> fromWhole =
        valueOrTypedError(READER_KINDS, () -> SegmentReader.parseIndex(bytes, bytes.length));
    assertThat(fromTail).as("index from the tail and from the whole segment").isEqualTo(fromWhole);
    return fromTail;
  }

  /** Recomputes batch, data, index, header and footer CRCs where their ranges fit the input. */
  private static void repair(byte[] b, boolean batchLengths) {
    int f = b.length - FOOTER;
    if (f < HEADER) {
      return;
    }
    long indexOffset = i64(b, f);
    long indexLength = i32(b, f + 8) & 0xffffffffL;
    if (indexOffset >= HEADER && indexOffset <= f && indexLength <= f - indexOffset) {
      int io = (int) indexOffset;
      for (long e = io + 4L; e + 32 <= io + indexLength; e += 32) {
        long pos = i64(b, (int) e + 20);
        int len = i32(b, (int) e + 28);
        if (pos >= HEADER && len >= 61 && pos <= io - len) {
          int p = (int) pos;
          if (batchLengths) {
            int batchLength = len - 12;
            b[p + 8] = (byte) (batchLength >>> 24);
            b[p + 9] = (byte) (batchLength >>> 16);
            b[p + 10] = (byte) (batchLength >>> 8);
            b[p + 11] = (byte) batchLength;
          }
          putCrc(b, p + 17, p + 21, len - 21);
        }
      }
      putCrc(b, f + 16, HEADER, io - HEADER);
      putCrc(b, f + 12, io, indexLength);
    }
    putCrc(b, 28, 0, 28);
    putCrc(b, f + 24, f, 24);
  }
}
