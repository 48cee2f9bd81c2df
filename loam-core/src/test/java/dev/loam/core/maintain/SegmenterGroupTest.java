package dev.loam.core.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.meta.command.SwapSegment;
import dev.loam.wal.segment.SegmentBatch;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the segmenter turns a segment's batches into index entries. */
class SegmenterGroupTest {
  static List<SegmentBatch> batches(int n, int records, int length) {
    List<SegmentBatch> out = new ArrayList<>();
    long pos = 32;
    for (int i = 0; i < n; i++) {
      out.add(new SegmentBatch((long) i * records, records, 1000 + (i * 37L) % 101, pos, length));
      pos += length;
    }
    return out;
  }

  @Test
  void theDefaultMakesOneEntryCoveringTheWholeSegment() {
    List<SegmentBatch> bs = batches(5000, 10, 70_000); // 350 MB of data
    List<SwapSegment.SegmentEntry> es = Segmenter.group(bs, Integer.MAX_VALUE);
    assertThat(es).hasSize(1);
    SwapSegment.SegmentEntry e = es.get(0);
    assertThat(e.byteOffset()).isEqualTo(32);
    assertThat(e.byteLength()).isEqualTo(5000 * 70_000);
    assertThat(e.recordCount()).isEqualTo(50_000);
    assertThat(e.maxTimestamp())
        .isEqualTo(bs.stream().mapToLong(SegmentBatch::maxTimestamp).max().orElseThrow());
  }

  @Test
  void aSmallerEntryBoundSplitsAtBatchBoundaries() {
    List<SegmentBatch> bs = batches(10, 3, 400);
    List<SwapSegment.SegmentEntry> es = Segmenter.group(bs, 1000);
    assertThat(es)
        .extracting(SwapSegment.SegmentEntry::byteLength)
        .containsExactly(800, 800, 800, 800, 800);
    assertThat(es)
        .extracting(SwapSegment.SegmentEntry::byteOffset)
        .containsExactly(32L, 832L, 1632L, 2432L, 3232L);
    // A batch larger than the bound is an entry alone.
    assertThat(Segmenter.group(batches(2, 1, 5000), 1000)).hasSize(2);
  }

  @Test
  void anEntryNeverHoldsMoreThanIntMaxRecords() {
    List<SegmentBatch> bs = batches(3, 1 << 30, 100);
    List<SwapSegment.SegmentEntry> es = Segmenter.group(bs, Integer.MAX_VALUE);
    // 2^30 + 2^30 fits no int: each batch becomes an entry of its own.
    assertThat(es)
        .extracting(SwapSegment.SegmentEntry::recordCount)
        .containsExactly(1 << 30, 1 << 30, 1 << 30);
  }
}
