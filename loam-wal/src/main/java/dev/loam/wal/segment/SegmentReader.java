package dev.loam.wal.segment;

import static dev.loam.wal.segment.SegmentFormat.hex;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.BigEndian;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.object.KeyResolver;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes and validates segments v1 and sealed v2 (docs/formats/segment-v1.md, segment-v2.md): a
 * tail (footer + index) or the whole object. Stateless and thread-safe. Corruption messages name
 * the field and expected/actual values; the caller appends {@code key=<object key>}.
 */
public final class SegmentReader {
  /** Size of the fixed footer at the end of every segment. */
  public static final int FOOTER_SIZE = SegmentFormat.FOOTER_SIZE;

  /** Size of the fixed header: where the first batch starts. */
  public static final int HEADER_SIZE = SegmentFormat.HEADER_SIZE;

  /** The footer: where the index is, and the CRCs of index and data. */
  public record SegmentFooter(
      long indexOffset, int indexLength, int indexCrc32c, int dataCrc32c, int version) {
    /** Whether the segment is sealed (version 2, segment-v2.md). */
    public boolean sealed() {
      return version == SegmentFormat.VERSION_SEALED;
    }
  }

  /**
   * A validated batch index: the batches, a sealed segment's seal block (else null) and an arrow
   * segment's column index bytes (else empty).
   */
  public record SegmentTail(
      List<SegmentBatch> batches, SealedSegment.Seal seal, byte[] columnIndex) {}

  /**
   * A segment's index region: the batch index and, for an arrow segment, the column index bytes
   * that follow it (arrow-batch-v1.md "Column index"; empty for a kafka segment). Only the column
   * index's magic and count are checked here: its entries are the arrow reader's to parse.
   */
  public record IndexRegion(List<SegmentBatch> batches, byte[] columnIndex) {}

  private SegmentReader() {}

  /**
   * Validates the footer in the last bytes of {@code tail}: magic, footer CRC, version, reserved
   * bits, and that the index range fits the object.
   *
   * @param tail the last {@code tail.length} bytes of the object
   * @throws CorruptionException if the footer is damaged or the object too small
   * @throws LoamException INVALID if {@code tail} is shorter than a footer or longer than the
   *     object, or the version is newer than this reader
   */
  public static SegmentFooter parseFooter(byte[] tail, long objectSize) {
    long min = (long) HEADER_SIZE + FOOTER_SIZE + SegmentFormat.INDEX_FIXED;
    if (objectSize < min) {
      throw new CorruptionException("segment too small size=" + objectSize + " min=" + min);
    }
    if (tail.length < FOOTER_SIZE || tail.length > objectSize) {
      throw new LoamException(
          Kind.INVALID,
          "segment tail length out of range tailLength="
              + tail.length
              + " objectSize="
              + objectSize);
    }
    int f = tail.length - FOOTER_SIZE;
    int magic = BigEndian.getInt(tail, f + SegmentFormat.F_MAGIC);
    if (magic != SegmentFormat.FOOTER_MAGIC) {
      throw new CorruptionException(
          "segment footer magic mismatch expected="
              + hex(SegmentFormat.FOOTER_MAGIC)
              + " actual="
              + hex(magic));
    }
    int stored = BigEndian.getInt(tail, f + SegmentFormat.F_FOOTER_CRC);
    int computed = SegmentFormat.crc(tail, f, SegmentFormat.F_FOOTER_CRC);
    if (stored != computed) {
      throw new CorruptionException(
          "segment footer crc mismatch stored=" + hex(stored) + " computed=" + hex(computed));
    }
    int version = BigEndian.getU16(tail, f + SegmentFormat.F_VERSION);
    if (version != SegmentFormat.VERSION && version != SegmentFormat.VERSION_SEALED) {
      throw new LoamException(Kind.INVALID, "unsupported segment version=" + version);
    }
    int reserved = BigEndian.getU16(tail, f + SegmentFormat.F_RESERVED);
    if (reserved != 0) {
      throw new CorruptionException("segment footer reserved bits set reserved=" + reserved);
    }
    long indexOffset = BigEndian.getLong(tail, f + SegmentFormat.F_INDEX_OFFSET);
    int indexLength = BigEndian.getInt(tail, f + SegmentFormat.F_INDEX_LENGTH);
    if (indexOffset < HEADER_SIZE
        || indexLength < SegmentFormat.INDEX_FIXED + SegmentFormat.ENTRY_SIZE
        || indexOffset + (indexLength & 0xffffffffL) + FOOTER_SIZE != objectSize) {
      throw new CorruptionException(
          "segment footer ranges do not match the object indexOffset="
              + indexOffset
              + " indexLength="
              + Integer.toUnsignedString(indexLength)
              + " objectSize="
              + objectSize);
    }
    return new SegmentFooter(
        indexOffset,
        indexLength,
        BigEndian.getInt(tail, f + SegmentFormat.F_INDEX_CRC),
        BigEndian.getInt(tail, f + SegmentFormat.F_DATA_CRC),
        version);
  }

  /** How many bytes from the end hold the footer and the index. */
  public static long requiredTailLength(SegmentFooter footer, long objectSize) {
    return objectSize - footer.indexOffset();
  }

  /**
   * Validates footer and index from a tail of at least {@link #requiredTailLength} bytes and
   * returns the batch index: CRC, count, dense offsets, contiguous positions from the header's end
   * to the index.
   *
   * @throws LoamException INVALID if the tail is too short for the index
   */
  public static List<SegmentBatch> parseIndex(byte[] tail, long objectSize) {
    return parseTail(tail, objectSize).batches();
  }

  /**
   * As {@link #parseIndex}, also returning the column index bytes of an arrow segment: an index
   * region of an unsealed segment longer than the batch index must continue with a column index
   * whose magic is {@code LACI} and whose count is the batch count.
   *
   * @throws LoamException INVALID if the tail is too short for the index
   */
  public static IndexRegion parseIndexRegion(byte[] tail, long objectSize) {
    SegmentTail t = parseTail(tail, objectSize);
    return new IndexRegion(t.batches(), t.columnIndex());
  }

  /**
   * As {@link #parseIndex}, also returning what follows the batch index: a sealed segment's seal
   * block (segment-v2.md), or an arrow segment's column index (arrow-batch-v1.md).
   *
   * @throws LoamException INVALID if the tail is too short for the index
   */
  public static SegmentTail parseTail(byte[] tail, long objectSize) {
    SegmentFooter footer = parseFooter(tail, objectSize);
    long need = requiredTailLength(footer, objectSize);
    if (tail.length < need) {
      throw new LoamException(
          Kind.INVALID,
          "segment tail too short for the index need=" + need + " tailLength=" + tail.length);
    }
    int idx = (int) (tail.length - need);
    int stored = footer.indexCrc32c();
    int computed = SegmentFormat.crc(tail, idx, footer.indexLength());
    if (stored != computed) {
      throw new CorruptionException(
          "segment index crc mismatch stored=" + hex(stored) + " computed=" + hex(computed));
    }
    long count = BigEndian.getInt(tail, idx) & 0xffffffffL;
    long batchIndexLength = SegmentFormat.INDEX_FIXED + count * SegmentFormat.ENTRY_SIZE;
    long extension = Integer.toUnsignedLong(footer.indexLength()) - batchIndexLength;
    boolean lengthOk;
    if (footer.sealed()) {
      lengthOk =
          extension > SealedSegment.SEAL_FIXED
              && extension <= SealedSegment.SEAL_FIXED + SealedSegment.MAX_KEY_ID_BYTES;
    } else {
      lengthOk =
          extension == 0
              || (extension >= 8
                  && BigEndian.getInt(tail, (int) (idx + batchIndexLength))
                      == SegmentFormat.COLUMN_INDEX_MAGIC
                  && (BigEndian.getInt(tail, (int) (idx + batchIndexLength) + 4) & 0xffffffffL)
                      == count);
    }
    if (count < 1 || count > SegmentFormat.MAX_BATCHES || !lengthOk) {
      throw new CorruptionException(
          "segment index count does not match its length count="
              + count
              + " indexLength="
              + footer.indexLength());
    }
    List<SegmentBatch> out = new ArrayList<>((int) count);
    int minLength = 61 + (footer.sealed() ? SealedSegment.TAG_LENGTH : 0);
    long expectedPosition = HEADER_SIZE;
    long expectedOffset = -1;
    int e = idx + SegmentFormat.INDEX_FIXED;
    for (int i = 0; i < count; i++, e += SegmentFormat.ENTRY_SIZE) {
      SegmentBatch b =
          new SegmentBatch(
              BigEndian.getLong(tail, e + SegmentFormat.E_BASE_OFFSET),
              BigEndian.getInt(tail, e + SegmentFormat.E_RECORD_COUNT),
              BigEndian.getLong(tail, e + SegmentFormat.E_MAX_TIMESTAMP),
              BigEndian.getLong(tail, e + SegmentFormat.E_POSITION),
              BigEndian.getInt(tail, e + SegmentFormat.E_LENGTH));
      String at = " batch=" + i;
      if (b.recordCount() < 1 || b.length() < minLength || b.baseOffset() < 0) {
        throw new CorruptionException(
            "segment index entry out of range"
                + at
                + " recordCount="
                + b.recordCount()
                + " length="
                + b.length()
                + " baseOffset="
                + b.baseOffset());
      }
      if (b.baseOffset() > Long.MAX_VALUE - b.recordCount()) {
        // The end offset would wrap negative and switch off the density check below.
        throw new CorruptionException(
            "segment index entry offsets overflow"
                + at
                + " baseOffset="
                + b.baseOffset()
                + " recordCount="
                + b.recordCount());
      }
      if (b.position() != expectedPosition) {
        throw new CorruptionException(
            "segment batches not contiguous"
                + at
                + " expected="
                + expectedPosition
                + " position="
                + b.position());
      }
      if (i > 0 && b.baseOffset() != expectedOffset) {
        throw new CorruptionException(
            "segment offsets not dense"
                + at
                + " expected="
                + expectedOffset
                + " baseOffset="
                + b.baseOffset());
      }
      expectedPosition = b.position() + b.length();
      expectedOffset = b.endOffset();
      out.add(b);
    }
    if (expectedPosition != footer.indexOffset()) {
      throw new CorruptionException(
          "segment data does not end at the index end="
              + expectedPosition
              + " indexOffset="
              + footer.indexOffset());
    }
    SealedSegment.Seal seal =
        footer.sealed() ? SealedSegment.parseSeal(tail, e, (int) extension) : null;
    int ext = (int) (idx + batchIndexLength);
    byte[] columnIndex =
        footer.sealed() ? new byte[0] : Arrays.copyOfRange(tail, ext, ext + (int) extension);
    return new SegmentTail(out, seal, columnIndex);
  }

  /**
   * Parses and validates a whole segment: everything {@link #parseIndex} checks, plus the header
   * (magic, CRC, version, encoding, flags), that the header's base offset is the first batch's, the
   * data CRC, and every batch (Kafka header and CRC, length, baseOffset, record count, max
   * timestamp against the index; in a COMPACTED segment the index count is the batch's offset span
   * {@code lastOffsetDelta + 1}, which bounds its record count).
   *
   * @throws CorruptionException on any damage, including truncation
   * @throws LoamException INVALID for an unsupported version or encoding
   */
  public static Segment parse(byte[] bytes) {
    return parse(bytes, null, null);
  }

  /**
   * As {@link #parse(byte[])}, also for a sealed segment (segment-v2.md) stored at {@code
   * objectKey}: every batch is opened with the key {@code keys} resolves and checked as in v1. The
   * returned segment holds the stored bytes and the stored positions.
   *
   * @param objectKey the segment's store key; null only for v1 segments
   * @param keys resolves the seal's key; null only for v1 segments
   * @throws CorruptionException on any damage, including a batch that fails authentication
   * @throws LoamException INVALID for an unsupported version or encoding, or a sealed segment
   *     without a key resolver; the resolver's errors ({@link dev.loam.error.KeyDestroyedException}
   *     for a destroyed key)
   */
  public static Segment parse(byte[] bytes, String objectKey, KeyResolver keys) {
    if (bytes.length < HEADER_SIZE) {
      throw new CorruptionException("segment truncated header length=" + bytes.length);
    }
    int magic = BigEndian.getInt(bytes, SegmentFormat.H_MAGIC);
    if (magic != SegmentFormat.HEADER_MAGIC) {
      throw new CorruptionException(
          "segment header magic mismatch expected="
              + hex(SegmentFormat.HEADER_MAGIC)
              + " actual="
              + hex(magic));
    }
    int stored = BigEndian.getInt(bytes, SegmentFormat.H_CRC);
    int computed = SegmentFormat.crc(bytes, 0, SegmentFormat.H_CRC);
    if (stored != computed) {
      throw new CorruptionException(
          "segment header crc mismatch stored=" + hex(stored) + " computed=" + hex(computed));
    }
    int version = BigEndian.getU16(bytes, SegmentFormat.H_VERSION);
    if (version != SegmentFormat.VERSION && version != SegmentFormat.VERSION_SEALED) {
      throw new LoamException(Kind.INVALID, "unsupported segment version=" + version);
    }
    int encoding = bytes[SegmentFormat.H_ENCODING] & 0xff;
    if (encoding != SegmentFormat.ENCODING_KAFKA && encoding != SegmentFormat.ENCODING_ARROW) {
      throw new LoamException(Kind.INVALID, "unsupported segment encoding=" + encoding);
    }
    boolean arrow = encoding == SegmentFormat.ENCODING_ARROW;
    boolean compacted = bytes[SegmentFormat.H_FLAGS] == SegmentFormat.FLAG_COMPACTED;
    if (bytes[SegmentFormat.H_FLAGS] != 0 && (!compacted || arrow)) {
      throw new CorruptionException(
          "segment header flags set flags=" + bytes[SegmentFormat.H_FLAGS]);
    }
    long streamId = BigEndian.getLong(bytes, SegmentFormat.H_STREAM_ID);
    int partition = BigEndian.getInt(bytes, SegmentFormat.H_PARTITION);
    long baseOffset = BigEndian.getLong(bytes, SegmentFormat.H_BASE_OFFSET);
    if (partition < 0 || baseOffset < 0) {
      throw new CorruptionException(
          "segment header out of range partition=" + partition + " baseOffset=" + baseOffset);
    }
    if (bytes.length < HEADER_SIZE + FOOTER_SIZE + SegmentFormat.INDEX_FIXED) {
      throw new CorruptionException("segment truncated length=" + bytes.length);
    }
    SegmentTail parsedTail = parseTail(bytes, bytes.length);
    List<SegmentBatch> batches = parsedTail.batches();
    if (arrow != (parsedTail.columnIndex().length > 0)) {
      throw new CorruptionException(
          "segment column index "
              + (arrow ? "missing in an arrow segment" : "present in a kafka segment")
              + " columnIndexBytes="
              + parsedTail.columnIndex().length);
    }
    if (batches.get(0).baseOffset() != baseOffset) {
      throw new CorruptionException(
          "segment header base offset differs from the index header="
              + baseOffset
              + " index="
              + batches.get(0).baseOffset());
    }
    SegmentFooter footer = parseFooter(bytes, bytes.length);
    if (footer.version() != version) {
      throw new CorruptionException(
          "segment footer version differs from the header header="
              + version
              + " footer="
              + footer.version());
    }
    int dataCrc = SegmentFormat.crc(bytes, HEADER_SIZE, (int) footer.indexOffset() - HEADER_SIZE);
    if (dataCrc != footer.dataCrc32c()) {
      throw new CorruptionException(
          "segment data crc mismatch stored="
              + hex(footer.dataCrc32c())
              + " computed="
              + hex(dataCrc));
    }
    if (arrow) {
      // Arrow segments are never sealed: an encrypted namespace's arrow streams stay in the WAL.
      if (parsedTail.seal() != null) {
        throw new CorruptionException("segment is sealed and arrow-encoded, which no writer makes");
      }
      checkFrames(bytes, batches);
      return new Segment(streamId, partition, baseOffset, batches, bytes);
    }
    byte[] plain = bytes;
    List<SegmentBatch> plainBatches = batches;
    if (parsedTail.seal() != null) {
      SealedSegment.Seal seal = parsedTail.seal();
      if (seal.streamId() != streamId
          || seal.partition() != partition
          || seal.flags() != (bytes[SegmentFormat.H_FLAGS] & 0xff)) {
        throw new CorruptionException(
            "segment seal block differs from the header flags="
                + seal.flags()
                + " streamId="
                + seal.streamId()
                + " partition="
                + seal.partition()
                + " headerStreamId="
                + streamId
                + " headerPartition="
                + partition);
      }
      if (keys == null || objectKey == null) {
        throw new LoamException(
            Kind.INVALID, "a sealed segment needs its object key and a key resolver");
      }
      byte[] sealedData = Arrays.copyOfRange(bytes, HEADER_SIZE, (int) footer.indexOffset());
      byte[] opened =
          SealedSegment.open(
              objectKey,
              seal,
              SealedSegment.resolve(seal, objectKey, keys),
              batches,
              0,
              batches.size(),
              sealedData);
      plain = new byte[HEADER_SIZE + opened.length];
      System.arraycopy(opened, 0, plain, HEADER_SIZE, opened.length);
      plainBatches = new ArrayList<>(batches.size());
      long pos = HEADER_SIZE;
      for (SegmentBatch b : batches) {
        int len = b.length() - SealedSegment.TAG_LENGTH;
        plainBatches.add(
            new SegmentBatch(b.baseOffset(), b.recordCount(), b.maxTimestamp(), pos, len));
        pos += len;
      }
    }
    for (int i = 0; i < plainBatches.size(); i++) {
      SegmentBatch b = plainBatches.get(i);
      RecordBatch rb =
          RecordBatch.readFrom(ByteBuffer.wrap(plain, (int) b.position(), b.length()).slice());
      if (rb.sizeInBytes() != b.length()
          || rb.baseOffset() != b.baseOffset()
          || (compacted
              ? rb.lastOffsetDelta() + 1L != b.recordCount() || rb.recordCount() > b.recordCount()
              : rb.recordCount() != b.recordCount())
          || rb.maxTimestamp() != b.maxTimestamp()) {
        throw new CorruptionException(
            "segment batch differs from its index entry batch="
                + i
                + " position="
                + b.position()
                + " index="
                + b
                + " batch="
                + rb);
      }
    }
    return new Segment(streamId, partition, baseOffset, batches, bytes);
  }

  /**
   * The fields of each arrow frame that the batch index repeats (magic, frame_length, base_offset,
   * record_count, max_timestamp); the frames' own CRCs are checked by the arrow reader, which this
   * module does not hold.
   */
  private static void checkFrames(byte[] bytes, List<SegmentBatch> batches) {
    for (int i = 0; i < batches.size(); i++) {
      SegmentBatch b = batches.get(i);
      int p = (int) b.position();
      if (BigEndian.getInt(bytes, p + 12) != SegmentFormat.FRAME_MAGIC
          || (BigEndian.getInt(bytes, p + 8) & 0xffffffffL) + 12 != b.length()
          || BigEndian.getLong(bytes, p) != b.baseOffset()
          || BigEndian.getInt(bytes, p + 24) != b.recordCount()
          || BigEndian.getLong(bytes, p + 36) != b.maxTimestamp()) {
        throw new CorruptionException(
            "segment arrow frame differs from its index entry batch="
                + i
                + " position="
                + p
                + " index="
                + b);
      }
    }
  }
}
