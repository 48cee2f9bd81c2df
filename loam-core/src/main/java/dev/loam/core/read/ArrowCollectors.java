package dev.loam.core.read;

import dev.loam.api.BatchFetchResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fetch collectors of column-projected reads of arrow streams (docs/reference/arrow.md
 * "Projected reads"): {@link Columns} for records, {@link PartFrames} for frames in part. Each
 * reads a segment entry through {@link ColumnReader} (only the needed byte ranges) and a WAL entry
 * whole.
 */
final class ArrowCollectors {
  private ArrowCollectors() {}

  /**
   * Records of an arrow stream with values of some columns: a segment entry is read by its
   * projected columns' byte ranges ({@link ColumnReader}); a WAL entry, whose chunk has no column
   * index in the metastore, is read whole and projected here.
   */
  static final class Columns implements Fetcher.Collector<FetchResult> {
    private final ColumnReader reader;
    private final List<String> columns;
    private final List<FetchedRecord> out = new ArrayList<>();

    Columns(ColumnReader reader, List<String> columns) {
      this.reader = reader;
      this.columns = columns;
    }

    @Override
    public CompletableFuture<Fetcher.EntryRead> read(
        ReadPath readPath,
        IndexEntry e,
        long from,
        int maxBytes,
        int partition,
        long fromOffset,
        List<String> schemas) {
      if (!dev.loam.core.ObjectLayout.isSegment(e.objectKey())) {
        return Fetcher.Collector.super.read(
            readPath, e, from, maxBytes, partition, fromOffset, schemas);
      }
      return reader
          .read(e, from, maxBytes, schemas, columns)
          .thenApply(
              p -> {
                List<List<dev.loam.wal.batch.RecordData>> frames = new ArrayList<>();
                for (int k = 0; k < p.frames().size(); k++) {
                  try {
                    frames.add(p.frames().get(k).decode(schemas, columns));
                  } catch (dev.loam.error.CorruptionException c) {
                    throw new dev.loam.error.CorruptionException(
                        c.getMessage()
                            + " object="
                            + e.objectKey()
                            + " position="
                            + p.positions().get(k),
                        c);
                  }
                }
                addFrames(e, p.baseOffset(), p.endOffset(), frames, partition, fromOffset);
                return new Fetcher.EntryRead(p.endOffset(), p.bytes());
              });
    }

    @Override
    public int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas) {
      List<List<dev.loam.wal.batch.RecordData>> frames;
      try {
        frames =
            dev.loam.core.arrow.ArrowCodec.get()
                .decodeProjected(schemas, ByteBuffer.wrap(s.bytes()), columns);
      } catch (dev.loam.error.CorruptionException c) {
        throw new dev.loam.error.CorruptionException(
            c.getMessage()
                + " object="
                + s.entry().objectKey()
                + " byteOffset="
                + s.entry().byteOffset(),
            c);
      }
      addFrames(s.entry(), s.baseOffset(), s.endOffset(), frames, partition, fromOffset);
      return s.bytes().length;
    }

    private void addFrames(
        IndexEntry e,
        long baseOffset,
        long endOffset,
        List<List<dev.loam.wal.batch.RecordData>> frames,
        int partition,
        long fromOffset) {
      long next = baseOffset;
      for (List<dev.loam.wal.batch.RecordData> frame : frames) {
        for (int i = 0; i < frame.size(); i++) {
          long offset = next + i;
          if (offset >= fromOffset) {
            dev.loam.wal.batch.RecordData d = frame.get(i);
            out.add(
                new FetchedRecord(partition, offset, d.timestamp(), d.key(), d.value(), List.of()));
          }
        }
        next += frame.size();
      }
      if (next != endOffset) {
        throw new dev.loam.error.CorruptionException(
            "record count differs from the offset index expected="
                + (endOffset - baseOffset)
                + " actual="
                + (next - baseOffset)
                + " object="
                + e.objectKey()
                + " byteOffset="
                + e.byteOffset());
      }
    }

    @Override
    public boolean isEmpty() {
      return out.isEmpty();
    }

    @Override
    public FetchResult result(long nextOffset, PartitionInfo b) {
      return new FetchResult(out, nextOffset, b.highWatermark(), b.logStartOffset());
    }
  }

  /**
   * Frames in part: from a segment, the pieces {@link ColumnReader} fetched; from a WAL chunk, the
   * same pieces cut out of the whole frames. Each goes out as its prefix (base_offset set) and its
   * fetched columns' bytes back to back; the reader checks the CRCs.
   */
  static final class PartFrames implements Fetcher.Collector<BatchFetchResult> {
    private final ColumnReader reader;
    private final List<String> columns;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    PartFrames(ColumnReader reader, List<String> columns) {
      this.reader = reader;
      this.columns = columns;
    }

    @Override
    public CompletableFuture<Fetcher.EntryRead> read(
        ReadPath readPath,
        IndexEntry e,
        long from,
        int maxBytes,
        int partition,
        long fromOffset,
        List<String> schemas) {
      if (!dev.loam.core.ObjectLayout.isSegment(e.objectKey())) {
        return Fetcher.Collector.super.read(
            readPath, e, from, maxBytes, partition, fromOffset, schemas);
      }
      return reader
          .read(e, from, maxBytes, schemas, columns)
          .thenApply(
              p -> {
                long next = p.baseOffset();
                int n = 0;
                for (ColumnReader.PartFrame f : p.frames()) {
                  ByteBuffer prefix = f.prefix();
                  int count = prefix.getInt(prefix.position() + 24);
                  if (next + count > fromOffset) {
                    n += write(prefix, f.columns(), next);
                  }
                  next += count;
                }
                if (next != p.endOffset()) {
                  throw new dev.loam.error.CorruptionException(
                      "record count differs from the segment index expected="
                          + (p.endOffset() - p.baseOffset())
                          + " actual="
                          + (next - p.baseOffset())
                          + " object="
                          + e.objectKey());
                }
                return new Fetcher.EntryRead(p.endOffset(), n);
              });
    }

    private int write(ByteBuffer prefix, ByteBuffer[] cols, long base) {
      byte[] head = new byte[prefix.remaining()];
      prefix.duplicate().get(head);
      ByteBuffer.wrap(head).putLong(0, base);
      out.write(head, 0, head.length);
      int n = head.length;
      for (ByteBuffer c : cols) {
        byte[] b = new byte[c.remaining()];
        c.duplicate().get(b);
        out.write(b, 0, b.length);
        n += b.length;
      }
      return n;
    }

    @Override
    public int add(ReadPath.Slice s, int partition, long fromOffset, List<String> schemas) {
      // Whole frames from a WAL chunk: cut out the same pieces a segment read fetches.
      ByteBuffer buf = ByteBuffer.wrap(s.bytes());
      long next = s.baseOffset();
      int n = 0;
      dev.loam.core.arrow.ArrowCodec codec = dev.loam.core.arrow.ArrowCodec.get();
      while (buf.hasRemaining()) {
        int start = buf.position();
        if (buf.remaining() < 56) {
          throw new dev.loam.error.CorruptionException(
              "arrow frame truncated object=" + s.entry().objectKey());
        }
        int size = (int) (Integer.toUnsignedLong(buf.getInt(start + 8)) + 12);
        int count = buf.getInt(start + 24);
        int c = buf.getShort(start + 44) & 0xffff;
        int version = buf.getShort(start + 22) & 0xffff;
        int metadata = buf.getInt(start + 48);
        int prefixLength = 56 + 12 * c + metadata;
        if (size > buf.remaining() || prefixLength > size || count < 1) {
          throw new dev.loam.error.CorruptionException(
              "arrow frame lengths do not fit the slice object=" + s.entry().objectKey());
        }
        if (next + count > fromOffset) {
          int[] fetched = codec.projectedColumns(schemas, version, columns);
          ByteBuffer[] cols = new ByteBuffer[fetched.length];
          for (int i = 0; i < fetched.length; i++) {
            int at = start + 56 + 12 * fetched[i];
            int off = buf.getInt(at);
            int len = buf.getInt(at + 4);
            if (off < 0 || len < 0 || (long) prefixLength + off + len > size) {
              throw new dev.loam.error.CorruptionException(
                  "arrow frame column table out of range object=" + s.entry().objectKey());
            }
            cols[i] = ByteBuffer.wrap(s.bytes(), start + prefixLength + off, len).slice();
          }
          n += write(ByteBuffer.wrap(s.bytes(), start, prefixLength).slice(), cols, next);
        }
        next += count;
        buf.position(start + size);
      }
      if (next != s.endOffset()) {
        throw new dev.loam.error.CorruptionException(
            "record count differs from the offset index expected="
                + (s.endOffset() - s.baseOffset())
                + " actual="
                + (next - s.baseOffset())
                + " object="
                + s.entry().objectKey());
      }
      return n;
    }

    @Override
    public boolean isEmpty() {
      return out.size() == 0;
    }

    @Override
    public BatchFetchResult result(long nextOffset, PartitionInfo b) {
      return new BatchFetchResult(
          ByteBuffer.wrap(out.toByteArray()), nextOffset, b.highWatermark(), b.logStartOffset());
    }
  }
}
