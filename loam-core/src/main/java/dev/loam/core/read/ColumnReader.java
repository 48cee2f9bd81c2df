package dev.loam.core.read;

import dev.loam.core.arrow.ArrowCodec;
import dev.loam.meta.command.IndexEntry;
import dev.loam.wal.batch.RecordData;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Column-projected reads of arrow segments (docs/formats/arrow-batch-v1.md "Column index"): from
 * the segment's column index (kept with its batch index, {@link SegmentIndexCache}) it computes,
 * for each frame read, the byte range of the frame's prefix (header, column table, IPC metadata)
 * and of each projected column, coalesces ranges that touch into one GET each, and hands each
 * frame's pieces back; the arrow codec that decodes them checks the header CRC and every fetched
 * column's CRC. Columns not projected are never read from the store. Thread-safe (stateless besides
 * the read path it uses).
 */
final class ColumnReader {
  /**
   * One frame read in part: its prefix (header, column table, IPC metadata), the positions of the
   * columns fetched (as {@link ArrowCodec#projectedColumns} gave them) and their bytes, unchecked.
   */
  record PartFrame(ByteBuffer prefix, int[] fetched, ByteBuffer[] columns) {
    /** The frame's records, every fetched range checked against its CRC by the codec. */
    List<RecordData> decode(List<String> versions, List<String> names) {
      return ArrowCodec.get().decodeProjected(versions, prefix.duplicate(), fetched, dup(), names);
    }

    private ByteBuffer[] dup() {
      ByteBuffer[] out = new ByteBuffer[columns.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = columns[i].duplicate();
      }
      return out;
    }
  }

  /** What a projected read of one index entry gives: frames in part, from {@code baseOffset}. */
  record Projected(
      long baseOffset, long endOffset, List<PartFrame> frames, List<Long> positions, int bytes) {}

  /** One byte range to fetch, and where its bytes land once the coalesced GETs return. */
  private static final class Piece {
    final long start;
    final int length;
    int get; // index of the coalesced GET holding it
    int at; // its offset inside that GET's bytes

    Piece(long start, int length) {
      this.start = start;
      this.length = length;
    }

    ByteBuffer slice(List<byte[]> gets) {
      return ByteBuffer.wrap(gets.get(get), at, length).slice();
    }
  }

  private final ReadPath readPath;

  ColumnReader(ReadPath readPath) {
    this.readPath = readPath;
  }

  /**
   * Frames of the segment entry {@code e} from the one holding {@code fromOffset} (or the entry's
   * first) on, until about {@code maxBytes} of projected bytes were read (at least one frame), each
   * frame's prefix and the byte ranges of {@code columns} and the system columns.
   */
  CompletableFuture<Projected> read(
      IndexEntry e, long fromOffset, int maxBytes, List<String> versions, List<String> columns) {
    return readPath
        .segmentIndexes()
        .get(e.objectKey())
        .thenCompose(ix -> read(e, ix, fromOffset, maxBytes, versions, columns));
  }

  private CompletableFuture<Projected> read(
      IndexEntry e,
      SegmentIndexCache.SegmentIndex ix,
      long fromOffset,
      int maxBytes,
      List<String> versions,
      List<String> columns) {
    int[] range = ReadPath.batchRange(e, ix);
    List<ArrowCodec.FrameColumns> layout = ix.columns();
    ArrowCodec codec = ArrowCodec.get();
    long from = Math.min(Math.max(fromOffset, e.baseOffset()), e.endOffset() - 1);
    int first = Math.max(ix.batchOfOffset(from), range[0]);
    List<Piece> prefixes = new ArrayList<>();
    List<int[]> fetched = new ArrayList<>();
    List<Piece[]> columnPieces = new ArrayList<>();
    List<Piece> all = new ArrayList<>();
    long bytes = 0;
    int end = first;
    while (end < range[1] && (end == first || bytes < maxBytes)) {
      ArrowCodec.FrameColumns fc = layout.get(end);
      int[] want = codec.projectedColumns(versions, fc.schemaVersion(), columns);
      long pos = ix.positions[end];
      Piece prefix = new Piece(pos, fc.prefixLength());
      all.add(prefix);
      bytes += fc.prefixLength();
      long[] starts = new long[fc.columnLengths().length + 1];
      starts[0] = pos + fc.prefixLength();
      for (int c = 0; c < fc.columnLengths().length; c++) {
        starts[c + 1] = starts[c] + fc.columnLengths()[c];
      }
      if (starts[starts.length - 1] != ix.positions[end + 1]) {
        throw new dev.loam.error.CorruptionException(
            "arrow column index entry does not cover its frame batch="
                + end
                + " frameEnd="
                + starts[starts.length - 1]
                + " nextPosition="
                + ix.positions[end + 1]
                + " key="
                + e.objectKey());
      }
      Piece[] cols = new Piece[want.length];
      for (int i = 0; i < want.length; i++) {
        int c = want[i];
        cols[i] = new Piece(starts[c], fc.columnLengths()[c]);
        all.add(cols[i]);
        bytes += cols[i].length;
      }
      prefixes.add(prefix);
      fetched.add(want);
      columnPieces.add(cols);
      end++;
    }
    // Coalesce: pieces are in increasing position; ranges that touch become one GET.
    List<long[]> gets = new ArrayList<>();
    for (Piece p : all) {
      long[] last = gets.isEmpty() ? null : gets.get(gets.size() - 1);
      if (last != null && p.start == last[0] + last[1]) {
        p.get = gets.size() - 1;
        p.at = (int) last[1];
        last[1] += p.length;
      } else {
        p.get = gets.size();
        p.at = 0;
        gets.add(new long[] {p.start, p.length});
      }
    }
    List<CompletableFuture<byte[]>> loads = new ArrayList<>(gets.size());
    for (long[] g : gets) {
      loads.add(
          g[1] == 0
              ? CompletableFuture.completedFuture(new byte[0])
              : readPath.loadRange(e.objectKey(), g[0], (int) g[1]));
    }
    long base = ix.baseOffsets[first];
    long endOffset = ix.baseOffsets[end];
    int total = (int) bytes;
    return CompletableFuture.allOf(loads.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            v -> {
              List<byte[]> got = new ArrayList<>(loads.size());
              for (CompletableFuture<byte[]> l : loads) {
                got.add(l.join());
              }
              List<PartFrame> frames = new ArrayList<>(prefixes.size());
              List<Long> positions = new ArrayList<>(prefixes.size());
              for (int k = 0; k < prefixes.size(); k++) {
                Piece[] cols = columnPieces.get(k);
                ByteBuffer[] colBytes = new ByteBuffer[cols.length];
                for (int i = 0; i < cols.length; i++) {
                  colBytes[i] = cols[i].slice(got);
                }
                frames.add(new PartFrame(prefixes.get(k).slice(got), fetched.get(k), colBytes));
                positions.add(prefixes.get(k).start);
              }
              return new Projected(base, endOffset, frames, positions, total);
            });
  }
}
