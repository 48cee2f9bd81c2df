package dev.loam.wal.batch;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.wal.BigEndian;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyOutputStream;

/**
 * Kafka's snappy records section: the xerial snappy-java stream that {@code SnappyOutputStream}
 * writes, or a single raw snappy block, which snappy-java's {@code SnappyInputStream} (and so
 * Kafka) also reads (docs/formats/compression.md).
 *
 * <p>Writing goes through snappy-java's own {@code SnappyOutputStream}, so Loam's bytes are the
 * ones Kafka writes. Reading is done here, chunk by chunk with snappy-java's block decompressor,
 * because {@code SnappyInputStream} sizes its buffers from lengths in the stream (a few bytes can
 * make it allocate hundreds of MiB): this reader checks every declared length against the bytes
 * present and the decompression limit before it allocates anything.
 */
final class XerialSnappy {
  /** The stream magic: 0x82 "SNAPPY" 0x00. */
  private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};

  /** Magic, then two big-endian i32 version fields that the reader does not interpret. */
  static final int HEADER_SIZE = 16;

  private XerialSnappy() {}

  /** {@code src[0, len)} as one xerial stream with 32 KiB chunks, as Kafka writes it. */
  static byte[] compress(byte[] src, int len) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, len / 2));
      try (SnappyOutputStream s = new SnappyOutputStream(out)) {
        s.write(src, 0, len);
      }
      return out.toByteArray();
    } catch (IOException e) {
      // In-memory streams do not fail; anything here is a bug.
      throw new LoamException(LoamException.Kind.INTERNAL, "snappy compression failed", e);
    }
  }

  /**
   * Decompresses a whole xerial stream, or a raw snappy block if {@code in} does not start with the
   * stream header, refusing output above {@code maxBytes}.
   *
   * @throws CorruptionException naming codec=snappy if the stream is empty, truncated, malformed,
   *     or larger than {@code maxBytes} decompressed
   */
  static ByteBuffer decompress(byte[] in, int maxBytes, String where) {
    if (in.length == 0) {
      throw corrupt("empty stream", where);
    }
    if (!isHeader(in, 0)) {
      int ulen = uncompressedLength(in, 0, in.length, 0, maxBytes, where);
      byte[] out = new byte[ulen];
      uncompress(in, 0, in.length, out, 0, ulen, where);
      return ByteBuffer.wrap(out);
    }
    byte[] out = new byte[Math.min(maxBytes, Math.max(256, in.length * 4))];
    int n = 0;
    int pos = HEADER_SIZE;
    while (pos < in.length) {
      if (isHeader(in, pos)) {
        // Concatenated streams: snappy-java reads through a repeated header.
        pos += HEADER_SIZE;
        continue;
      }
      if (in.length - pos < 4) {
        throw corrupt(
            "chunk length truncated remaining=" + (in.length - pos) + " offset=" + pos, where);
      }
      int chunk = BigEndian.getInt(in, pos);
      pos += 4;
      if (chunk <= 0 || chunk > in.length - pos) {
        throw corrupt(
            "chunk length out of range length="
                + chunk
                + " remaining="
                + (in.length - pos)
                + " offset="
                + (pos - 4),
            where);
      }
      int ulen = uncompressedLength(in, pos, chunk, n, maxBytes, where);
      if (ulen > out.length - n) {
        long grown = Math.max((long) n + ulen, Math.min(maxBytes, 2L * out.length));
        out = Arrays.copyOf(out, (int) grown);
      }
      uncompress(in, pos, chunk, out, n, ulen, where);
      n += ulen;
      pos += chunk;
    }
    return ByteBuffer.wrap(out, 0, n).slice();
  }

  private static boolean isHeader(byte[] in, int pos) {
    return in.length - pos >= HEADER_SIZE
        && Arrays.equals(in, pos, pos + MAGIC.length, MAGIC, 0, MAGIC.length);
  }

  /**
   * The length a raw block declares, checked before anything is sized: with the {@code done} bytes
   * already decompressed it must stay within {@code maxBytes}.
   */
  private static int uncompressedLength(
      byte[] in, int off, int len, int done, int maxBytes, String where) {
    int ulen;
    try {
      ulen = Snappy.uncompressedLength(in, off, len);
    } catch (IOException e) {
      throw corrupt("block length unreadable cause=" + e.getMessage() + " offset=" + off, where);
    }
    // A declared length of 2^31 or more comes back negative.
    if (ulen < 0 || ulen > maxBytes - done) {
      throw Codecs.exceedsLimit(Compression.SNAPPY, maxBytes, where);
    }
    return ulen;
  }

  /**
   * Decompresses one raw block into {@code out[outOff, outOff + ulen)}. The native decoder writes
   * exactly the length the block declares and does not check the array, so the caller has made room
   * for {@code ulen} bytes.
   */
  private static void uncompress(
      byte[] in, int off, int len, byte[] out, int outOff, int ulen, String where) {
    int got;
    try {
      got = Snappy.uncompress(in, off, len, out, outOff);
    } catch (IOException e) {
      throw corrupt("block malformed cause=" + e.getMessage() + " offset=" + off, where);
    }
    if (got != ulen) {
      throw corrupt("block length mismatch declared=" + ulen + " actual=" + got, where);
    }
  }

  private static CorruptionException corrupt(String what, String where) {
    return new CorruptionException("record batch snappy " + what + " codec=snappy " + where);
  }
}
