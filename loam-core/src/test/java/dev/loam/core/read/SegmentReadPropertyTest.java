package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.FetchedRecord;
import dev.loam.core.maintain.Segmenter;
import dev.loam.meta.command.IndexEntry;
import dev.loam.store.memory.InMemoryObjectStore;
import dev.loam.wal.batch.BatchSettings;
import dev.loam.wal.batch.Compression;
import dev.loam.wal.batch.RecordBatchEncoder;
import dev.loam.wal.batch.RecordData;
import dev.loam.wal.segment.Segment;
import dev.loam.wal.segment.SegmentBuilder;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * For any segment (batch sizes and record counts), read block, fetch offset and maxBytes: a block
 * read returns whole batches starting at or before the offset, with every record from the offset to
 * the slice end right (offset, value, timestamp), reaches at least maxBytes or the entry end, and
 * never reads more than maxBytes plus two blocks; a timestamp seek names the first batch whose
 * records reach the time. Also for entries that cover only part of a segment (older segments made
 * several entries).
 */
class SegmentReadPropertyTest {
  static byte[] value(long offset, int size) {
    byte[] v = new byte[size];
    for (int i = 0; i < size; i++) {
      v[i] = (byte) (offset * 13 + i);
    }
    return v;
  }

  @Property(tries = 60)
  void blockReadsReturnExactlyTheRecordsAsked(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 1, max = 6) Integer> recordsPerBatch,
      @ForAll @IntRange(min = 1, max = 400) int valueSize,
      @ForAll @IntRange(min = 256, max = 8192) int blockBytes,
      @ForAll @IntRange(min = 0, max = 10_000) int offsetPick,
      @ForAll @IntRange(min = 1, max = 20_000) int maxBytes,
      @ForAll @IntRange(min = 0, max = 3) int entrySplit) {
    InMemoryObjectStore store = new InMemoryObjectStore(InstantSource.system());
    long base = 1000;
    SegmentBuilder b = new SegmentBuilder(1, 0, base);
    long offset = base;
    for (int n : recordsPerBatch) {
      List<RecordData> rs = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        rs.add(RecordData.of(10 * (offset + r), null, value(offset + r, valueSize)));
      }
      b.addEntry(offset, RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), rs));
      offset += n;
    }
    Segment seg = b.build();
    store.put("seg/1/0/x.seg", seg.bytes()).join();
    // One entry per segment, or (entrySplit > 0) the middle entry of a segment split in groups.
    int groupBytes =
        entrySplit == 0 ? Integer.MAX_VALUE : Math.max(1, (int) seg.dataEnd() / (entrySplit + 1));
    var groups = Segmenter.group(seg.batches(), groupBytes);
    int pick = groups.size() / 2;
    long entryBase = base;
    for (int i = 0; i < pick; i++) {
      entryBase += groups.get(i).recordCount();
    }
    var g = groups.get(pick);
    IndexEntry e =
        new IndexEntry(
            entryBase,
            g.recordCount(),
            "seg/1/0/x.seg",
            g.byteOffset(),
            g.byteLength(),
            g.maxTimestamp());
    ReadPath rp =
        new ReadPath(store, new TailCache(0), null, new ReadCounters(), blockBytes, 1 << 20);
    long from = e.baseOffset() + offsetPick % e.recordCount();
    ReadPath.Slice s = rp.read(e, from, maxBytes).join();
    assertThat(s.baseOffset()).isBetween(e.baseOffset(), from);
    assertThat(s.endOffset()).isGreaterThan(from).isLessThanOrEqualTo(e.endOffset());
    if (s.endOffset() < e.endOffset()) {
      assertThat(s.bytes().length)
          .as("stops early only at maxBytes")
          .isGreaterThanOrEqualTo(maxBytes);
    }
    if (rp.readsByBlocks(e)) {
      long maxBatch = 0;
      for (var sb : seg.batches()) {
        maxBatch = Math.max(maxBatch, sb.length());
      }
      assertThat((long) s.bytes().length)
          .isLessThanOrEqualTo((long) maxBytes + 2L * Math.max(blockBytes, maxBatch));
    } else {
      assertThat(s.bytes().length).isEqualTo(e.byteLength());
    }
    List<FetchedRecord> out = new ArrayList<>();
    ReadPath.decode(s, 0, from, out);
    long o = from;
    for (FetchedRecord r : out) {
      assertThat(r.offset()).isEqualTo(o);
      assertThat(r.value()).isEqualTo(value(o, valueSize));
      assertThat(r.timestamp()).isEqualTo(10 * o);
      o++;
    }
    assertThat(o).isEqualTo(s.endOffset());
    // Timestamps grow with offsets here: the seek must name the batch holding offset "from".
    long seek = rp.seekTimestamp(e, 10 * from).join();
    if (rp.readsByBlocks(e)) {
      assertThat(seek).isLessThanOrEqualTo(from);
      long batchBase = seek;
      for (var sb : seg.batches()) {
        if (sb.baseOffset() <= from && from < sb.endOffset()) {
          batchBase = sb.baseOffset();
        }
      }
      assertThat(seek).isEqualTo(Math.max(batchBase, e.baseOffset()));
    } else {
      assertThat(seek).isEqualTo(e.baseOffset());
    }
  }
}
