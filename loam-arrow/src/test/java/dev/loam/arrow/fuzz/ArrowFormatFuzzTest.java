package dev.loam.arrow.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.loam.arrow.LoamArrowCodec;
import dev.loam.arrow.StreamSchema;
import dev.loam.arrow.format.ArrowFrame;
import dev.loam.arrow.format.ColumnIndex;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Coverage-guided fuzzing of the arrow batch format's readers (docs/formats/arrow-batch-v1.md):
 * {@link ArrowFrame#readAll} and the codec's decode of the frames under a fixed two-column schema
 * ({@code frame}), and {@link ColumnIndex#parse} ({@code columnIndex}). In {@code frame} the first
 * input byte is a mode: bit 0 recomputes the first frame's header CRC and column CRCs after
 * mutation, so the fuzzer reaches the IPC metadata behind them.
 *
 * <p>Contract: {@code CorruptionException}, or INVALID for an unsupported frame version, or frames
 * that decode to one record list each (or CORRUPTION when the IPC bytes are not a batch of the
 * schema); the bytes read are never changed. A column index parses to entries that encode back to
 * exactly the input, or is CORRUPTION.
 */
class ArrowFormatFuzzTest {
  static final String SCHEMA =
      "{\"fields\":[{\"name\":\"id\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":64,\"isSigned\":true},\"children\":[]},"
          + "{\"name\":\"s\",\"nullable\":true,\"type\":{\"name\":\"utf8\"},\"children\":[]}]}";
  static final List<String> VERSIONS = List.of(StreamSchema.fromJson(SCHEMA).toJson());
  static final LoamArrowCodec CODEC = new LoamArrowCodec();

  @FuzzTest
  void frame(byte[] input) {
    if (input.length == 0) {
      return;
    }
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    if ((input[0] & 1) != 0) {
      repair(bytes);
    }
    byte[] stored = bytes.clone();
    try {
      List<ArrowFrame> frames = ArrowFrame.readAll(ByteBuffer.wrap(bytes));
      assertThat(frames).isNotEmpty();
      long total = 0;
      for (ArrowFrame f : frames) {
        assertThat(f.recordCount()).isPositive();
        total += f.size();
      }
      assertThat(total).isEqualTo(bytes.length);
      try {
        List<List<dev.loam.wal.batch.RecordData>> records =
            CODEC.decode(VERSIONS, ByteBuffer.wrap(bytes));
        assertThat(records).hasSameSizeAs(frames);
        for (int i = 0; i < frames.size(); i++) {
          assertThat(records.get(i)).hasSize(frames.get(i).recordCount());
        }
      } catch (CorruptionException e) {
        assertThat(e.getMessage()).isNotBlank();
      }
    } catch (CorruptionException e) {
      assertThat(e.getMessage()).isNotBlank();
    } catch (LoamException e) {
      assertThat(e.kind()).isEqualTo(LoamException.Kind.INVALID);
      assertThat(e.getMessage()).startsWith("unsupported arrow frame version=");
    } finally {
      assertThat(bytes).as("input after parsing").isEqualTo(stored);
    }
  }

  @FuzzTest
  void columnIndex(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int count = input[0] & 0x0f;
    byte[] bytes = Arrays.copyOfRange(input, 1, input.length);
    ColumnIndex ci;
    try {
      ci = ColumnIndex.parse(ByteBuffer.wrap(bytes), count);
    } catch (CorruptionException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertThat(ci.entries()).hasSize(count);
    assertThat(ci.encode()).isEqualTo(bytes);
  }

  /** Recomputes the first frame's column CRCs and header CRC where its lengths fit the bytes. */
  static void repair(byte[] b) {
    if (b.length < ArrowFrame.HEADER_SIZE) {
      return;
    }
    ByteBuffer buf = ByteBuffer.wrap(b);
    int c = buf.getShort(44) & 0xffff;
    long metadata = Integer.toUnsignedLong(buf.getInt(48));
    long prefix = ArrowFrame.HEADER_SIZE + 12L * c + metadata;
    if (prefix > b.length) {
      return;
    }
    for (int i = 0; i < c; i++) {
      int at = ArrowFrame.HEADER_SIZE + 12 * i;
      long off = Integer.toUnsignedLong(buf.getInt(at));
      long len = Integer.toUnsignedLong(buf.getInt(at + 4));
      if (prefix + off + len <= b.length) {
        buf.putInt(at + 8, crc(b, (int) (prefix + off), (int) len));
      }
    }
    buf.putInt(16, crc(b, 20, (int) prefix - 20));
  }

  static int crc(byte[] b, int off, int len) {
    CRC32C c = new CRC32C();
    c.update(b, off, len);
    return (int) c.getValue();
  }
}
