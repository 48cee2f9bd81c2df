package dev.loam.wal.batch;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Compression of a batch's records section. Streams here are in-memory adapters only (the codec
 * libraries expose streaming APIs); nothing touches files or sockets.
 */
final class Codecs {
  /** Kafka's default zstd level (CompressionType.ZSTD default). */
  static final int ZSTD_LEVEL = 3;

  private Codecs() {}

  static LoamException unsupported(Compression c, String what) {
    return new LoamException(
        LoamException.Kind.INVALID,
        "unsupported compression codec=" + c.wireName() + " operation=" + what);
  }

  static byte[] compress(Compression c, byte[] src, int len) {
    switch (c) {
      case ZSTD:
        // One zstd frame with content size; Kafka's streaming decoder reads any frame.
        return Zstd.compress(Arrays.copyOf(src, len), ZSTD_LEVEL);
      case GZIP:
        try {
          ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, len / 2));
          try (GZIPOutputStream gz = new GZIPOutputStream(out, 8 * 1024)) {
            gz.write(src, 0, len);
          }
          return out.toByteArray();
        } catch (IOException e) {
          // In-memory streams do not fail; anything here is a bug.
          throw new LoamException(LoamException.Kind.INTERNAL, "gzip compression failed", e);
        }
      default:
        throw unsupported(c, "encode");
    }
  }

  /**
   * Decompresses {@code src} (position..limit), refusing output above {@code maxBytes}.
   *
   * @throws CorruptionException if the stream is malformed or too large
   */
  static ByteBuffer decompress(Compression c, ByteBuffer src, int maxBytes, String where) {
    byte[] in = new byte[src.remaining()];
    src.get(src.position(), in, 0, in.length);
    try (InputStream is = open(c, in)) {
      byte[] out = new byte[Math.min(maxBytes, Math.max(256, in.length * 4))];
      int n = 0;
      while (true) {
        if (n == out.length) {
          if (out.length >= maxBytes) {
            // Probe one byte: exactly maxBytes is allowed, more is not.
            if (is.read() < 0) {
              break;
            }
            throw new CorruptionException(
                "record batch decompressed records exceed limit max="
                    + maxBytes
                    + " codec="
                    + c.wireName()
                    + " "
                    + where);
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

  private static InputStream open(Compression c, byte[] in) throws IOException {
    switch (c) {
      case ZSTD:
        return new ZstdInputStreamNoFinalizer(new ByteArrayInputStream(in));
      case GZIP:
        return new GZIPInputStream(new ByteArrayInputStream(in), 8 * 1024);
      default:
        throw unsupported(c, "decode");
    }
  }
}
