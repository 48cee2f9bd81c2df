package dev.loam.wal.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.loam.error.CorruptionException;
import dev.loam.wal.BigEndian;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The decompression bound and malformed streams: whatever a records section holds, decoding ends in
 * records or in a {@link CorruptionException} naming the codec, never in an allocation the stream
 * asked for or an unchecked exception.
 */
class CodecBoundsTest {
  static final String WHERE = "at position=0";

  static ByteBuffer decompress(Compression c, byte[] in, int max) {
    return Codecs.decompress(c, ByteBuffer.wrap(in), max, WHERE);
  }

  static CorruptionException corruption(Compression c, byte[] in, int max) {
    return catchThrowableOfType(CorruptionException.class, () -> decompress(c, in, max));
  }

  static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i % 251 == 0 ? i : i % 17);
    }
    return b;
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void exactlyTheLimitDecodesOneByteMoreIsCorruption(Compression c) {
    int max = 200_000; // several snappy chunks and lz4 blocks
    byte[] atLimit = pattern(max);
    ByteBuffer out = decompress(c, Codecs.compress(c, atLimit, max), max);
    byte[] back = new byte[out.remaining()];
    out.get(back);
    assertThat(back).isEqualTo(atLimit);

    byte[] over = pattern(max + 1);
    assertThat(corruption(c, Codecs.compress(c, over, over.length), max))
        .hasMessageContaining("exceed limit max=" + max)
        .hasMessageContaining("codec=" + c.wireName());
  }

  /** A batch whose records inflate past 64 MiB is refused through records(), for every codec. */
  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void aBatchInflatingPastTheLimitIsCorruption(Compression c) {
    byte[] zeros = new byte[RecordBatch.MAX_UNCOMPRESSED_RECORDS_BYTES + 1];
    byte[] bomb = Codecs.compress(c, zeros, zeros.length);
    assertThat(bomb.length).isLessThan(zeros.length / 20);
    byte[] header =
        RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), RecordBatchTest.TWO);
    byte[] batch = BatchArbitraries.withSection(header, c, bomb);
    RecordBatch rb = RecordBatch.readFrom(ByteBuffer.wrap(batch));
    assertThat(catchThrowableOfType(CorruptionException.class, rb::records))
        .hasMessageContaining("exceed limit max=" + RecordBatch.MAX_UNCOMPRESSED_RECORDS_BYTES)
        .hasMessageContaining("codec=" + c.wireName());
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"GZIP", "SNAPPY", "LZ4", "ZSTD"})
  void emptyAndTruncatedStreamsAreCorruption(Compression c) {
    if (c != Compression.ZSTD) {
      // zstd-jni's streaming decoder reads no input as an empty stream; a batch that declares
      // records then fails on its recordCount.
      assertThat(corruption(c, new byte[0], 1 << 20)).hasMessageContaining("codec=" + c.wireName());
    }
    byte[] data = pattern(100_000);
    byte[] whole = Codecs.compress(c, data, data.length);
    for (int len : new int[] {1, 4, 7, 15, 16, 17, 20, whole.length / 2, whole.length - 1}) {
      if (c == Compression.SNAPPY && len == XerialSnappy.HEADER_SIZE) {
        continue; // a bare xerial header is an empty stream, as snappy-java reads it
      }
      assertThat(corruption(c, Arrays.copyOf(whole, len), 1 << 20))
          .as("prefix %d of %d", len, whole.length)
          .hasMessageContaining("codec=" + c.wireName());
    }
  }

  /** Raw snappy declares its length in a varint; a huge one is refused before any allocation. */
  @Test
  void rawSnappyDeclaringAHugeLengthIsRefusedUpFront() {
    List<byte[]> liars =
        List.of(
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x00}, // 2^32-1
            new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00}, // 2^31-1
            new byte[] {(byte) 0x81, (byte) 0x80, (byte) 0x80, 0x20, 0x00}); // 64 MiB + 1
    for (byte[] liar : liars) {
      assertThat(corruption(Compression.SNAPPY, liar, RecordBatch.MAX_UNCOMPRESSED_RECORDS_BYTES))
          .hasMessageContaining("exceed limit")
          .hasMessageContaining("codec=snappy");
    }
  }

  static byte[] framedHeader() {
    byte[] stream = XerialSnappy.compress(new byte[] {1, 2, 3}, 3);
    return Arrays.copyOf(stream, XerialSnappy.HEADER_SIZE);
  }

  static byte[] withChunk(byte[] header, int declaredLength, byte[] body) {
    byte[] out = Arrays.copyOf(header, header.length + 4 + body.length);
    BigEndian.putInt(out, header.length, declaredLength);
    System.arraycopy(body, 0, out, header.length + 4, body.length);
    return out;
  }

  @Test
  void xerialChunkLengthsAreCheckedAgainstTheBytesPresent() {
    byte[] header = framedHeader();
    byte[] body = {3, 8, 1, 2, 3}; // a raw block of 3 literal bytes
    assertThat(decompress(Compression.SNAPPY, withChunk(header, 5, body), 100).remaining())
        .isEqualTo(3);
    for (int declared : new int[] {Integer.MAX_VALUE, 6, 0, -5}) {
      assertThat(corruption(Compression.SNAPPY, withChunk(header, declared, body), 100))
          .as("declared %d", declared)
          .hasMessageContaining("chunk length out of range length=" + declared)
          .hasMessageContaining("codec=snappy");
    }
    // A chunk whose block declares more than the limit allows is refused before it is sized.
    byte[] liar = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x00};
    assertThat(corruption(Compression.SNAPPY, withChunk(header, liar.length, liar), 100))
        .hasMessageContaining("exceed limit max=100");
    // One to three bytes after the last chunk cannot be a chunk length.
    byte[] trailing = Arrays.copyOf(withChunk(header, 5, body), header.length + 9 + 2);
    assertThat(corruption(Compression.SNAPPY, trailing, 100))
        .hasMessageContaining("chunk length truncated remaining=2");
  }

  @Test
  void aMalformedSnappyBlockIsCorruption() {
    byte[] header = framedHeader();
    byte[] bad = {10, 0x7f, 1, 2}; // declares 10 bytes, then a literal running past the input
    assertThat(corruption(Compression.SNAPPY, withChunk(header, bad.length, bad), 100))
        .hasMessageContaining("block malformed")
        .hasMessageContaining("codec=snappy");
    assertThat(corruption(Compression.SNAPPY, bad, 100)).hasMessageContaining("codec=snappy");
  }
}
