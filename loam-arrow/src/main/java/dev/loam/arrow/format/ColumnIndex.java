package dev.loam.arrow.format;

import dev.loam.error.CorruptionException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The column index of an arrow segment (docs/formats/arrow-batch-v1.md "Column index"): per batch,
 * its schema version, the length of the frame prefix before the body, and each column's length, so
 * that a reader locates every column of every batch from one tail read. Its CRC is the segment
 * footer's index CRC, which covers it.
 */
public record ColumnIndex(List<Entry> entries) {
  /** ASCII {@code LACI}. */
  public static final int MAGIC = 0x4C414349;

  /** A column index; the list is copied. */
  public ColumnIndex {
    entries = List.copyOf(entries);
  }

  /** One batch's column ranges. */
  public record Entry(int schemaVersion, int prefixLength, int[] columnLengths) {
    /** The entry for a frame. */
    public static Entry of(ArrowFrame f) {
      int[] lengths = new int[f.columnCount()];
      for (int i = 0; i < lengths.length; i++) {
        lengths[i] = f.columnLength(i);
      }
      return new Entry(f.schemaVersion(), f.prefixLength(), lengths);
    }

    public Entry {
      Objects.requireNonNull(columnLengths, "columnLengths");
      columnLengths = columnLengths.clone();
    }

    /** Column {@code i}'s start relative to the frame's first byte. */
    public long columnStart(int i) {
      long at = prefixLength;
      for (int j = 0; j < i; j++) {
        at += columnLengths[j];
      }
      return at;
    }

    /** The frame's total size. */
    public long frameSize() {
      return columnStart(columnLengths.length);
    }

    @Override
    public int[] columnLengths() {
      return columnLengths.clone();
    }

    /** The number of columns. */
    public int columnCount() {
      return columnLengths.length;
    }

    /** Column {@code i}'s length. */
    public int columnLength(int i) {
      return columnLengths[i];
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e
          && e.schemaVersion == schemaVersion
          && e.prefixLength == prefixLength
          && java.util.Arrays.equals(e.columnLengths, columnLengths);
    }

    @Override
    public int hashCode() {
      return Objects.hash(schemaVersion, prefixLength, java.util.Arrays.hashCode(columnLengths));
    }

    @Override
    public String toString() {
      return "Entry[schemaVersion="
          + schemaVersion
          + ", prefixLength="
          + prefixLength
          + ", columnLengths="
          + java.util.Arrays.toString(columnLengths)
          + "]";
    }
  }

  /** The index's encoded length. */
  public int encodedLength() {
    long n = 8;
    for (Entry e : entries) {
      n += 8 + 4L * e.columnLengths.length;
    }
    return Math.toIntExact(n);
  }

  /** The index's bytes. */
  public byte[] encode() {
    ByteBuffer b = ByteBuffer.allocate(encodedLength());
    b.putInt(MAGIC).putInt(entries.size());
    for (Entry e : entries) {
      b.putShort((short) e.columnLengths.length)
          .putShort((short) e.schemaVersion)
          .putInt(e.prefixLength);
      for (int l : e.columnLengths) {
        b.putInt(l);
      }
    }
    return b.array();
  }

  /**
   * Parses exactly the remaining bytes of {@code buf} as a column index of {@code count} entries.
   *
   * @throws CorruptionException naming the field on any structural mismatch
   */
  public static ColumnIndex parse(ByteBuffer buf, int count) {
    ByteBuffer b = buf.slice();
    if (b.remaining() < 8) {
      throw new CorruptionException("arrow column index truncated: " + b.remaining() + " bytes");
    }
    int magic = b.getInt();
    if (magic != MAGIC) {
      throw new CorruptionException(
          "arrow column index magic expected=0x4c414349 actual=0x" + Integer.toHexString(magic));
    }
    long n = Integer.toUnsignedLong(b.getInt());
    if (n != count) {
      throw new CorruptionException(
          "arrow column index count=" + n + " expected=" + count + " (the batch count)");
    }
    List<Entry> out = new ArrayList<>(count);
    for (int k = 0; k < count; k++) {
      if (b.remaining() < 8) {
        throw new CorruptionException("arrow column index truncated at entry " + k);
      }
      int c = b.getShort() & 0xffff;
      int v = b.getShort() & 0xffff;
      long prefix = Integer.toUnsignedLong(b.getInt());
      if (c < 1 || v < 1) {
        throw new CorruptionException(
            "arrow column index entry " + k + " column_count=" + c + " schema_version=" + v);
      }
      if (prefix < ArrowFrame.HEADER_SIZE + (long) ArrowFrame.COLUMN_ENTRY_SIZE * c + 8
          || prefix > Integer.MAX_VALUE) {
        throw new CorruptionException("arrow column index entry " + k + " prefix_length=" + prefix);
      }
      if (b.remaining() < 4L * c) {
        throw new CorruptionException("arrow column index truncated at entry " + k);
      }
      int[] lengths = new int[c];
      long total = prefix;
      for (int i = 0; i < c; i++) {
        long l = Integer.toUnsignedLong(b.getInt());
        total += l;
        if (l > Integer.MAX_VALUE || total > Integer.MAX_VALUE) {
          throw new CorruptionException(
              "arrow column index entry " + k + " column " + i + " length=" + l);
        }
        lengths[i] = (int) l;
      }
      out.add(new Entry(v, (int) prefix, lengths));
    }
    if (b.hasRemaining()) {
      throw new CorruptionException(
          "arrow column index has "
              + b.remaining()
              + " trailing bytes after "
              + count
              + " entries");
    }
    return new ColumnIndex(out);
  }
}
