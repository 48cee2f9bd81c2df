package dev.loam.wal.batch;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Compression of a batch's records section, for every Kafka codec (docs/formats/compression.md).
 * Streams here are in-memory adapters only (the codec libraries expose streaming APIs); nothing
 * touches files or sockets. Every decoder is bounded: its output never exceeds the caller's limit,
 * and a malformed or oversized stream is a {@link CorruptionException} naming the codec.
 */
final class Codecs {
  /** Kafka's default zstd level (CompressionType.ZSTD default). */
  static final int ZSTD_LEVEL = 3;

  private Codecs() {}

  /**
   * lz4-java's instances, created on first lz4 use (they load lz4-java's native library). They are
   * stateless and thread-safe; the fast compressor is the one Kafka uses at its default level.
   */
  private static final class Lz4 {
    static final LZ4Compressor COMPRESSOR = LZ4Factory.fastestInstance().fastCompressor();
    static final LZ4SafeDecompressor DECOMPRESSOR = LZ4Factory.fastestInstance().safeDecompressor();
    static final XXHash32 XXHASH32 = XXHashFactory.fastestInstance().hash32();
  }

  /** Output stream decorators of the stream codecs. */
  private interface Wrapper {
    OutputStream wrap(OutputStream out) throws IOException;
  }

  /** Compresses {@code src[0, len)} into one stream of codec {@code c}. */
  static byte[] compress(Compression c, byte[] src, int len) {
    return switch (c) {
      case NONE -> Arrays.copyOf(src, len);
      // One zstd frame with content size; Kafka's streaming decoder reads any frame.
      case ZSTD -> Zstd.compress(Arrays.copyOf(src, len), ZSTD_LEVEL);
      case GZIP -> viaStream(c, src, len, out -> new GZIPOutputStream(out, 8 * 1024));
      case SNAPPY -> XerialSnappy.compress(src, len);
      // Kafka's frame: 64 KiB independent blocks, no checksums, no content size.
      case LZ4 ->
          viaStream(
              c,
              src,
              len,
              out ->
                  new LZ4FrameOutputStream(
                      out,
                      LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
                      -1L,
                      Lz4.COMPRESSOR,
                      Lz4.XXHASH32,
                      LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE));
    };
  }

  private static byte[] viaStream(Compression c, byte[] src, int len, Wrapper wrapper) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, len / 2));
      try (OutputStream s = wrapper.wrap(out)) {
        s.write(src, 0, len);
      }
      return out.toByteArray();
    } catch (IOException e) {
      // In-memory streams do not fail; anything here is a bug.
      throw new LoamException(LoamException.Kind.INTERNAL, c.wireName() + " compression failed", e);
    }
  }

  /**
   * Decompresses {@code src} (position..limit), refusing output above {@code maxBytes}.
   *
   * @throws CorruptionException naming the codec if the stream is malformed, has bytes after its
   *     end, or decompresses to more than {@code maxBytes}
   */
  static ByteBuffer decompress(Compression c, ByteBuffer src, int maxBytes, String where) {
    if (c == Compression.NONE) {
      return src.slice();
    }
    byte[] in = new byte[src.remaining()];
    src.get(src.position(), in, 0, in.length);
    try {
      if (c == Compression.SNAPPY) {
        return XerialSnappy.decompress(in, maxBytes, where);
      }
      ByteArrayInputStream source = new ByteArrayInputStream(in);
      try (InputStream is = open(c, source)) {
        ByteBuffer out = readBounded(is, in.length, maxBytes, c, where);
        if (c == Compression.LZ4 && source.available() > 0) {
          // Kafka writes exactly one frame; anything after its end mark is not a record.
          throw new CorruptionException(
              "record batch lz4 frame followed by trailing bytes remaining="
                  + source.available()
                  + " codec=lz4 "
                  + where);
        }
        return out;
      }
    } catch (IOException | RuntimeException e) {
      if (e instanceof LoamException le) {
        throw le;
      }
      throw new CorruptionException(
          "record batch records decompression failed codec="
              + c.wireName()
              + " cause="
              + e.getMessage()
              + " "
              + where,
          e);
    }
  }

  /** Reads {@code is} to its end into one array of at most {@code maxBytes}. */
  private static ByteBuffer readBounded(
      InputStream is, int inputLength, int maxBytes, Compression c, String where)
      throws IOException {
    byte[] out = new byte[Math.min(maxBytes, Math.max(256, inputLength * 4))];
    int n = 0;
    while (true) {
      if (n == out.length) {
        if (out.length >= maxBytes) {
          // Probe one byte: exactly maxBytes is allowed, more is not.
          if (is.read() < 0) {
            break;
          }
          throw exceedsLimit(c, maxBytes, where);
        }
        out = Arrays.copyOf(out, (int) Math.min(maxBytes, 2L * out.length));
      }
      int r = is.read(out, n, out.length - n);
      if (r < 0) {
        break;
      }
      n += r;
    }
    return ByteBuffer.wrap(out, 0, n).slice();
  }

  static CorruptionException exceedsLimit(Compression c, int maxBytes, String where) {
    return new CorruptionException(
        "record batch decompressed records exceed limit max="
            + maxBytes
            + " codec="
            + c.wireName()
            + " "
            + where);
  }

  private static InputStream open(Compression c, ByteArrayInputStream in) throws IOException {
    return switch (c) {
      case ZSTD -> new ZstdInputStreamNoFinalizer(in);
      case GZIP -> new GZIPInputStream(in, 8 * 1024);
      // One frame only (readSingleFrame): the caller then requires the input to be used up.
      case LZ4 -> new LZ4FrameInputStream(in, Lz4.DECOMPRESSOR, Lz4.XXHASH32, true);
      case NONE, SNAPPY ->
          throw new LoamException(LoamException.Kind.INTERNAL, "not a stream codec: " + c);
    };
  }
}
