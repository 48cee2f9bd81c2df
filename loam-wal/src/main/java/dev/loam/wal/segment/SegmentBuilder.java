package dev.loam.wal.segment;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.wal.BigEndian;
import dev.loam.wal.batch.RecordBatch;
import dev.loam.wal.batch.RecordBatches;
import dev.loam.wal.object.KeyEncryptionKey;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Builds one segment v1 (docs/formats/segment-v1.md), or sealed v2 (segment-v2.md), of one
 * partition from the bytes of its offset-index entries, in offset order. Batches are copied
 * verbatim except their baseOffset field, which is set to the assigned offset (outside the Kafka
 * batch CRC, so nothing is re-encoded). Memory is the segment's size: the caller bounds it by
 * choosing how much to add. An arrow segment ({@link #arrow}) holds arrow batch frames instead
 * (docs/formats/arrow-batch-v1.md): the caller validates the frames ({@link #addFrames}) and
 * supplies the column index ({@link #build(byte[])}), since this module does not read Arrow; arrow
 * segments are never sealed. Not thread-safe.
 */
public final class SegmentBuilder {
  private final long streamId;
  private final int partition;
  private final long baseOffset;
  private final boolean compacted;
  private final boolean arrow;
  private final List<SegmentBatch> batches = new ArrayList<>();
  private byte[] data = new byte[4096];
  private int dataLength = SegmentFormat.HEADER_SIZE;
  private long nextOffset;

  /**
   * @throws LoamException INVALID if {@code partition < 0} or {@code baseOffset < 0}
   */
  public SegmentBuilder(long streamId, int partition, long baseOffset) {
    this(streamId, partition, baseOffset, false);
  }

  /**
   * A builder for a compacted segment when {@code compacted} (header flag COMPACTED,
   * segment-v1.md): batches may hold fewer records than offsets (gaps, or none at all), so each
   * batch covers {@code lastOffsetDelta + 1} offsets and the index's record_count holds that span.
   *
   * @throws LoamException INVALID if {@code partition < 0} or {@code baseOffset < 0}
   */
  public SegmentBuilder(long streamId, int partition, long baseOffset, boolean compacted) {
    this(streamId, partition, baseOffset, compacted, false);
  }

  /**
   * A builder for an arrow segment (header encoding 1 ARROW, arrow-batch-v1.md): entries are added
   * with {@link #addFrames} and the segment is built with {@link #build(byte[])}.
   *
   * @throws LoamException INVALID if {@code partition < 0} or {@code baseOffset < 0}
   */
  public static SegmentBuilder arrow(long streamId, int partition, long baseOffset) {
    return new SegmentBuilder(streamId, partition, baseOffset, false, true);
  }

  private SegmentBuilder(
      long streamId, int partition, long baseOffset, boolean compacted, boolean arrow) {
    this.compacted = compacted;
    this.arrow = arrow;
    if (partition < 0 || baseOffset < 0) {
      throw new LoamException(
          Kind.INVALID,
          "segment needs partition >= 0 and baseOffset >= 0 partition="
              + partition
              + " baseOffset="
              + baseOffset);
    }
    this.streamId = streamId;
    this.partition = partition;
    this.baseOffset = baseOffset;
    this.nextOffset = baseOffset;
  }

  /**
   * Appends the batches of one index entry: {@code bytes} holds whole RecordBatch v2 batches back
   * to back whose first record has offset {@code entryBaseOffset}, which must be where the previous
   * entry ended. Every batch is validated (header, Kafka CRC) before anything is added.
   *
   * @return the batches added, with their positions in the segment
   * @throws dev.loam.error.CorruptionException if a batch is damaged
   * @throws LoamException INVALID if the offset is not the next one, a batch covers no offset, the
   *     offsets would pass {@link Long#MAX_VALUE}, or the segment grows too large
   */
  public List<SegmentBatch> addEntry(long entryBaseOffset, byte[] bytes) {
    if (arrow) {
      throw new LoamException(Kind.INVALID, "an arrow segment takes frames (addFrames)");
    }
    checkNext(entryBaseOffset);
    List<RecordBatch> parsed = RecordBatches.parseAll(ByteBuffer.wrap(bytes));
    if (parsed.isEmpty()) {
      throw new LoamException(Kind.INVALID, "segment entry holds no batch offset=" + nextOffset);
    }
    List<Frame> frames = new ArrayList<>(parsed.size());
    for (RecordBatch b : parsed) {
      frames.add(new Frame(b.sizeInBytes(), span(b), b.maxTimestamp()));
    }
    return add(bytes, frames);
  }

  /**
   * One arrow batch frame as the caller validated it (arrow-batch-v1.md): its size in bytes, its
   * record count and its max_timestamp.
   */
  public record Frame(int length, int recordCount, long maxTimestamp) {}

  /**
   * Appends the frames of one index entry of an arrow stream: {@code bytes} holds whole arrow batch
   * frames back to back, described in order by {@code frames} (the caller has verified them, CRCs
   * included), whose first record has offset {@code entryBaseOffset}. Each frame's base_offset (its
   * first eight bytes, outside its CRCs) is set to its assigned offset.
   *
   * @return the frames added, with their positions in the segment
   * @throws LoamException INVALID if this is not an arrow builder, the frames do not cover {@code
   *     bytes} exactly, the offset is not the next one, or the segment grows too large
   */
  public List<SegmentBatch> addFrames(long entryBaseOffset, byte[] bytes, List<Frame> frames) {
    if (!arrow) {
      throw new LoamException(Kind.INVALID, "a kafka segment takes batches (addEntry)");
    }
    checkNext(entryBaseOffset);
    long total = 0;
    for (Frame f : frames) {
      if (f.length() < 8) {
        throw new LoamException(Kind.INVALID, "arrow frame too short length=" + f.length());
      }
      total += f.length();
    }
    if (frames.isEmpty() || total != bytes.length) {
      throw new LoamException(
          Kind.INVALID,
          "arrow frames do not cover the entry frames="
              + frames.size()
              + " frameBytes="
              + total
              + " entryBytes="
              + bytes.length);
    }
    return add(bytes, frames);
  }

  private void checkNext(long entryBaseOffset) {
    if (entryBaseOffset != nextOffset) {
      throw new LoamException(
          Kind.INVALID,
          "segment entries must be dense expectedOffset="
              + nextOffset
              + " entryBaseOffset="
              + entryBaseOffset);
    }
  }

  private List<SegmentBatch> add(byte[] bytes, List<Frame> parsed) {
    long needed = (long) dataLength + bytes.length;
    if (needed
                + SegmentFormat.INDEX_FIXED
                + (long) (batches.size() + parsed.size()) * SegmentFormat.ENTRY_SIZE
                + SegmentFormat.FOOTER_SIZE
            > SegmentFormat.MAX_OBJECT_SIZE
        || batches.size() + parsed.size() > SegmentFormat.MAX_BATCHES) {
      throw new LoamException(Kind.INVALID, "segment too large bytes=" + needed);
    }
    if (needed > data.length) {
      data = Arrays.copyOf(data, (int) Math.min(SegmentFormat.MAX_OBJECT_SIZE, needed * 2));
    }
    // Spans first, so that a refused entry leaves the builder unchanged.
    long end = nextOffset;
    for (Frame b : parsed) {
      int span = b.recordCount();
      if (span < 1) {
        throw new LoamException(
            Kind.INVALID, "segment batch covers no offset offset=" + end + " span=" + span);
      }
      if (end > Long.MAX_VALUE - span) {
        throw new LoamException(
            Kind.INVALID, "segment offsets overflow offset=" + end + " span=" + span);
      }
      end += span;
    }
    List<SegmentBatch> added = new ArrayList<>(parsed.size());
    int at = 0;
    for (Frame b : parsed) {
      int len = b.length();
      int pos = dataLength;
      System.arraycopy(bytes, at, data, pos, len);
      // Kafka's baseOffset and an arrow frame's base_offset are both the first eight bytes.
      RecordBatches.setBaseOffset(data, pos, nextOffset);
      int span = b.recordCount();
      SegmentBatch sb = new SegmentBatch(nextOffset, span, b.maxTimestamp(), pos, len);
      batches.add(sb);
      added.add(sb);
      nextOffset += span;
      dataLength += len;
      at += len;
    }
    return added;
  }

  /** The offsets a batch covers: its record count, or in a compacted segment its offset span. */
  private int span(RecordBatch b) {
    return compacted ? b.lastOffsetDelta() + 1 : b.recordCount();
  }

  /** Batches added so far. */
  public int batchCount() {
    return batches.size();
  }

  /** Bytes of the data region so far, header included. */
  public long dataBytes() {
    return dataLength;
  }

  /** The offset after the last record added. */
  public long nextOffset() {
    return nextOffset;
  }

  /**
   * The data region so far (the frames or batches back to back, base offsets patched), a read-only
   * view; an arrow segment's caller builds the column index from it.
   */
  public ByteBuffer dataRegion() {
    return ByteBuffer.wrap(data, SegmentFormat.HEADER_SIZE, dataLength - SegmentFormat.HEADER_SIZE)
        .slice()
        .asReadOnlyBuffer();
  }

  /**
   * Writes header, index and footer.
   *
   * @throws LoamException INVALID if no batch was added, or this is an arrow builder
   */
  public Segment build() {
    if (arrow) {
      throw new LoamException(Kind.INVALID, "an arrow segment needs its column index");
    }
    return build(new byte[0]);
  }

  /**
   * Writes header, index and footer of an arrow segment: {@code columnIndex} (arrow-batch-v1.md
   * "Column index", one entry per frame) follows the batch index inside the index region, covered
   * by the footer's index CRC.
   *
   * @throws LoamException INVALID if no frame was added, this is not an arrow builder, or the
   *     column index does not start with its magic and the frame count
   */
  public Segment build(byte[] columnIndex) {
    if (batches.isEmpty()) {
      throw new LoamException(Kind.INVALID, "a segment needs at least one batch");
    }
    if (arrow
        ? columnIndex.length < 8
            || BigEndian.getInt(columnIndex, 0) != SegmentFormat.COLUMN_INDEX_MAGIC
            || BigEndian.getInt(columnIndex, 4) != batches.size()
        : columnIndex.length != 0) {
      throw new LoamException(
          Kind.INVALID,
          "column index does not fit the segment arrow="
              + arrow
              + " columnIndexBytes="
              + columnIndex.length
              + " batches="
              + batches.size());
    }
    long size = (long) dataLength + tailLength(columnIndex.length);
    if (size > SegmentFormat.MAX_OBJECT_SIZE) {
      throw new LoamException(Kind.INVALID, "segment too large columnIndex=" + columnIndex.length);
    }
    byte[] out = Arrays.copyOf(data, (int) size);
    return finish(out, batches, SegmentFormat.VERSION, columnIndex);
  }

  /**
   * Writes a sealed segment v2 (docs/formats/segment-v2.md) to be stored at {@code objectKey}:
   * every batch encrypted under a fresh data key drawn from {@code random}, wrapped under {@code
   * kek}.
   *
   * @throws LoamException INVALID if no batch was added, the object key is not 1..1024 bytes of
   *     UTF-8, or the sealed segment would be too large
   */
  public Segment buildSealed(String objectKey, KeyEncryptionKey kek, RandomGenerator random) {
    if (batches.isEmpty()) {
      throw new LoamException(Kind.INVALID, "a segment needs at least one batch");
    }
    if (arrow) {
      throw new LoamException(Kind.INVALID, "arrow segments are not sealed");
    }
    byte[] material = new byte[SealedSegment.DATA_KEY_LENGTH];
    random.nextBytes(material);
    try {
      byte[] seal =
          SealedSegment.sealBlock(
              kek, material, compacted ? SegmentFormat.FLAG_COMPACTED : 0, streamId, partition);
      long size =
          (long) dataLength
              + (long) batches.size() * SealedSegment.TAG_LENGTH
              + tailLength(seal.length);
      if (size > SegmentFormat.MAX_OBJECT_SIZE) {
        throw new LoamException(Kind.INVALID, "segment too large bytes=" + size);
      }
      byte[] out = new byte[(int) size];
      javax.crypto.SecretKey dk = SealedSegment.dataKey(material);
      List<SegmentBatch> sealed = new ArrayList<>(batches.size());
      long pos = SegmentFormat.HEADER_SIZE;
      for (int i = 0; i < batches.size(); i++) {
        SegmentBatch b = batches.get(i);
        SegmentBatch s =
            new SegmentBatch(
                b.baseOffset(),
                b.recordCount(),
                b.maxTimestamp(),
                pos,
                b.length() + SealedSegment.TAG_LENGTH);
        SealedSegment.sealBatch(
            dk, objectKey, seal, i, s, data, (int) b.position(), b.length(), out, (int) pos);
        sealed.add(s);
        pos += s.length();
      }
      return finish(out, sealed, SegmentFormat.VERSION_SEALED, seal);
    } finally {
      Arrays.fill(material, (byte) 0);
    }
  }

  /** Index, {@code extensionLength} bytes after it (seal block or column index), and footer. */
  private int tailLength(int extensionLength) {
    return SegmentFormat.INDEX_FIXED
        + batches.size() * SegmentFormat.ENTRY_SIZE
        + extensionLength
        + SegmentFormat.FOOTER_SIZE;
  }

  /**
   * Writes header, index, {@code extension} (a sealed segment's seal block, an arrow segment's
   * column index, else empty) and footer around the data already in {@code out}.
   */
  private Segment finish(byte[] out, List<SegmentBatch> stored, int version, byte[] extension) {
    SegmentBatch last = stored.get(stored.size() - 1);
    int dataEnd = (int) (last.position() + last.length());
    int indexLength =
        SegmentFormat.INDEX_FIXED + stored.size() * SegmentFormat.ENTRY_SIZE + extension.length;
    BigEndian.putInt(out, SegmentFormat.H_MAGIC, SegmentFormat.HEADER_MAGIC);
    BigEndian.putShort(out, SegmentFormat.H_VERSION, version);
    out[SegmentFormat.H_ENCODING] =
        (byte) (arrow ? SegmentFormat.ENCODING_ARROW : SegmentFormat.ENCODING_KAFKA);
    out[SegmentFormat.H_FLAGS] = (byte) (compacted ? SegmentFormat.FLAG_COMPACTED : 0);
    BigEndian.putLong(out, SegmentFormat.H_STREAM_ID, streamId);
    BigEndian.putInt(out, SegmentFormat.H_PARTITION, partition);
    BigEndian.putLong(out, SegmentFormat.H_BASE_OFFSET, baseOffset);
    BigEndian.putInt(out, SegmentFormat.H_CRC, SegmentFormat.crc(out, 0, SegmentFormat.H_CRC));
    int idx = dataEnd;
    BigEndian.putInt(out, idx, stored.size());
    int e = idx + SegmentFormat.INDEX_FIXED;
    for (SegmentBatch b : stored) {
      BigEndian.putLong(out, e + SegmentFormat.E_BASE_OFFSET, b.baseOffset());
      BigEndian.putInt(out, e + SegmentFormat.E_RECORD_COUNT, b.recordCount());
      BigEndian.putLong(out, e + SegmentFormat.E_MAX_TIMESTAMP, b.maxTimestamp());
      BigEndian.putLong(out, e + SegmentFormat.E_POSITION, b.position());
      BigEndian.putInt(out, e + SegmentFormat.E_LENGTH, b.length());
      e += SegmentFormat.ENTRY_SIZE;
    }
    System.arraycopy(extension, 0, out, e, extension.length);
    int f = idx + indexLength;
    BigEndian.putLong(out, f + SegmentFormat.F_INDEX_OFFSET, idx);
    BigEndian.putInt(out, f + SegmentFormat.F_INDEX_LENGTH, indexLength);
    BigEndian.putInt(out, f + SegmentFormat.F_INDEX_CRC, SegmentFormat.crc(out, idx, indexLength));
    BigEndian.putInt(
        out,
        f + SegmentFormat.F_DATA_CRC,
        SegmentFormat.crc(out, SegmentFormat.HEADER_SIZE, dataEnd - SegmentFormat.HEADER_SIZE));
    BigEndian.putShort(out, f + SegmentFormat.F_VERSION, version);
    BigEndian.putShort(out, f + SegmentFormat.F_RESERVED, 0);
    BigEndian.putInt(
        out, f + SegmentFormat.F_FOOTER_CRC, SegmentFormat.crc(out, f, SegmentFormat.F_FOOTER_CRC));
    BigEndian.putInt(out, f + SegmentFormat.F_MAGIC, SegmentFormat.FOOTER_MAGIC);
    return new Segment(streamId, partition, baseOffset, stored, out);
  }
}
