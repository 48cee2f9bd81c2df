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
 * choosing how much to add. Not thread-safe.
 */
public final class SegmentBuilder {
  private final long streamId;
  private final int partition;
  private final long baseOffset;
  private final boolean compacted;
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
    this.compacted = compacted;
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
    if (entryBaseOffset != nextOffset) {
      throw new LoamException(
          Kind.INVALID,
          "segment entries must be dense expectedOffset="
              + nextOffset
              + " entryBaseOffset="
              + entryBaseOffset);
    }
    List<RecordBatch> parsed = RecordBatches.parseAll(ByteBuffer.wrap(bytes));
    if (parsed.isEmpty()) {
      throw new LoamException(Kind.INVALID, "segment entry holds no batch offset=" + nextOffset);
    }
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
    for (RecordBatch b : parsed) {
      int span = span(b);
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
    for (RecordBatch b : parsed) {
      int len = b.sizeInBytes();
      int pos = dataLength;
      System.arraycopy(bytes, at, data, pos, len);
      RecordBatches.setBaseOffset(data, pos, nextOffset);
      int span = span(b);
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
   * Writes header, index and footer: a segment v1.
   *
   * @throws LoamException INVALID if no batch was added
   */
  public Segment build() {
    if (batches.isEmpty()) {
      throw new LoamException(Kind.INVALID, "a segment needs at least one batch");
    }
    byte[] out = Arrays.copyOf(data, dataLength + tailLength(0));
    return finish(out, batches, SegmentFormat.VERSION, null);
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

  private int tailLength(int sealLength) {
    return SegmentFormat.INDEX_FIXED
        + batches.size() * SegmentFormat.ENTRY_SIZE
        + sealLength
        + SegmentFormat.FOOTER_SIZE;
  }

  /** Writes header, index (and seal block) and footer around the data already in {@code out}. */
  private Segment finish(byte[] out, List<SegmentBatch> stored, int version, byte[] seal) {
    SegmentBatch last = stored.get(stored.size() - 1);
    int dataEnd = (int) (last.position() + last.length());
    int indexLength =
        SegmentFormat.INDEX_FIXED
            + stored.size() * SegmentFormat.ENTRY_SIZE
            + (seal == null ? 0 : seal.length);
    BigEndian.putInt(out, SegmentFormat.H_MAGIC, SegmentFormat.HEADER_MAGIC);
    BigEndian.putShort(out, SegmentFormat.H_VERSION, version);
    out[SegmentFormat.H_ENCODING] = SegmentFormat.ENCODING_KAFKA;
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
    if (seal != null) {
      System.arraycopy(seal, 0, out, e, seal.length);
    }
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
