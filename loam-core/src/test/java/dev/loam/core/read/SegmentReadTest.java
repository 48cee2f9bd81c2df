package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.loam.api.FetchedRecord;
import dev.loam.core.maintain.Segmenter;
import dev.loam.error.CorruptionException;
import dev.loam.meta.command.IndexEntry;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Reads of one-entry-per-segment entries through the segment's batch index: only the blocks holding
 * the asked offsets are fetched, the index is loaded once, timestamps are found without reading
 * data, and an index that disagrees with the offset index is corruption.
 */
class SegmentReadTest {
  static final int BLOCK = 4096;
  static final long BASE = 50;

  /** Counts ranged GETs, their bytes and suffix GETs. */
  static final class CountingStore extends ForwardingObjectStore {
    final AtomicInteger rangedGets = new AtomicInteger();
    final AtomicLong rangedBytes = new AtomicLong();
    final AtomicInteger tailGets = new AtomicInteger();

    CountingStore(InMemoryObjectStore d) {
      super(d);
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      rangedGets.incrementAndGet();
      return super.get(key, offset, length)
          .thenApply(
              b -> {
                rangedBytes.addAndGet(b.length);
                return b;
              });
    }

    @Override
    public CompletableFuture<TailRead> getTail(String key, int length) {
      tailGets.incrementAndGet();
      return super.getTail(key, length);
    }
  }

  /** Value of record {@code offset}. */
  static byte[] value(long offset, int size) {
    byte[] v = new byte[size];
    for (int i = 0; i < size; i++) {
      v[i] = (byte) (offset * 31 + i);
    }
    return v;
  }

  static long timestamp(long offset) {
    return 1_000_000 + offset * 10;
  }

  /**
   * A segment of {@code batches} batches of {@code perBatch} records from {@link #BASE}, stored at
   * {@code key}; returns its one index entry (as the segmenter makes it).
   */
  static IndexEntry segment(
      InMemoryObjectStore store, String key, int batches, int perBatch, int valueSize) {
    SegmentBuilder b = new SegmentBuilder(1, 0, BASE);
    long offset = BASE;
    for (int i = 0; i < batches; i++) {
      List<RecordData> rs = new ArrayList<>();
      for (int r = 0; r < perBatch; r++) {
        rs.add(RecordData.of(timestamp(offset + r), null, value(offset + r, valueSize)));
      }
      b.addEntry(offset, RecordBatchEncoder.encode(BatchSettings.plain(Compression.NONE), rs));
      offset += perBatch;
    }
    Segment s = b.build();
    store.put(key, s.bytes()).join();
    var entries = Segmenter.group(s.batches(), Integer.MAX_VALUE);
    assertThat(entries).as("one entry per segment").hasSize(1);
    var e = entries.get(0);
    return new IndexEntry(
        BASE, e.recordCount(), key, e.byteOffset(), e.byteLength(), e.maxTimestamp());
  }

  final InMemoryObjectStore mem = new InMemoryObjectStore(InstantSource.system());
  final CountingStore store = new CountingStore(mem);
  final ReadCounters stats = new ReadCounters();
  final ReadPath rp = new ReadPath(store, new TailCache(0), null, stats, BLOCK, 1 << 20);

  static List<FetchedRecord> decode(ReadPath.Slice s, long from) {
    List<FetchedRecord> out = new ArrayList<>();
    ReadPath.decode(s, 0, from, out);
    return out;
  }

  void assertRecords(List<FetchedRecord> recs, long from, int valueSize) {
    long o = from;
    for (FetchedRecord r : recs) {
      assertThat(r.offset()).isEqualTo(o);
      assertThat(r.value()).isEqualTo(value(o, valueSize));
      assertThat(r.timestamp()).isEqualTo(timestamp(o));
      o++;
    }
  }

  @Test
  void aReadInsideALargeEntryFetchesOnlyTheBlockHoldingTheOffset() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    assertThat(e.byteLength()).isGreaterThan(15 * BLOCK);
    long from = BASE + 150;
    ReadPath.Slice s = rp.read(e, from, 1).join();
    assertThat(s.baseOffset()).isLessThanOrEqualTo(from);
    assertThat(s.endOffset()).isGreaterThan(from).isLessThan(e.endOffset());
    assertThat(s.bytes().length).isLessThanOrEqualTo(BLOCK);
    assertThat(store.rangedGets.get()).as("one block GET").isEqualTo(1);
    assertThat(store.rangedBytes.get()).isEqualTo(s.bytes().length);
    assertThat(stats.segmentIndexGets()).as("footer and index in one suffix GET").isEqualTo(1);
    List<FetchedRecord> recs = decode(s, from);
    assertThat(recs.get(0).offset()).isEqualTo(from);
    assertThat(recs.get(recs.size() - 1).offset()).isEqualTo(s.endOffset() - 1);
    assertRecords(recs, from, 200);
  }

  @Test
  void maxBytesReadsFollowingBlocksInParallelGetsAndTheEntryEndStopsThem() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    long from = BASE + 30;
    ReadPath.Slice s = rp.read(e, from, 3 * BLOCK).join();
    assertThat(s.bytes().length).isGreaterThanOrEqualTo(3 * BLOCK - 0);
    assertThat(store.rangedGets.get()).isBetween(3, 4);
    assertRecords(decode(s, from), from, 200);
    // A read that asks for more than the rest of the entry stops at its end.
    ReadPath.Slice rest = rp.read(e, e.endOffset() - 2, Integer.MAX_VALUE).join();
    assertThat(rest.endOffset()).isEqualTo(e.endOffset());
    assertRecords(decode(rest, e.endOffset() - 2), e.endOffset() - 2, 200);
    // Reading the whole entry block by block returns every record once.
    long next = BASE;
    while (next < e.endOffset()) {
      ReadPath.Slice part = rp.read(e, next, 1).join();
      List<FetchedRecord> recs = decode(part, next);
      assertRecords(recs, next, 200);
      next = part.endOffset();
    }
    assertThat(stats.segmentIndexGets()).as("the index is loaded once").isEqualTo(1);
    assertThat(stats.segmentIndexHits()).isPositive();
  }

  @Test
  void aLargeIndexTakesASecondGetAndStillReadsRight() {
    IndexEntry e = segment(mem, "seg/1/0/50-b.seg", 3000, 1, 10);
    assertThat(32L * 3000).isGreaterThan(SegmentIndexCache.TAIL_GUESS);
    long from = BASE + 2500;
    ReadPath.Slice s = rp.read(e, from, 1).join();
    assertThat(stats.segmentIndexGets()).isEqualTo(2);
    assertThat(store.tailGets.get()).isEqualTo(1);
    assertRecords(decode(s, from), from, 10);
  }

  @Test
  void timestampSeekUsesTheBatchIndexAndReadsOneBlock() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    long target = timestamp(BASE + 200) + 5; // between records 200 and 201
    long batchBase = rp.seekTimestamp(e, target).join();
    // Batches hold 3 records from 50: [248, 251) ends at 250, too early; [251, 254) is the first.
    assertThat(batchBase).isEqualTo(BASE + 201);
    assertThat(store.rangedGets.get()).as("no data read to find the batch").isZero();
    ReadPath.Slice s = rp.read(e, batchBase, 1).join();
    FetchedRecord first =
        decode(s, batchBase).stream().filter(r -> r.timestamp() >= target).findFirst().get();
    assertThat(first.offset()).isEqualTo(BASE + 201);
    assertThat(store.rangedGets.get()).isEqualTo(1);
    assertThat(rp.seekTimestamp(e, timestamp(e.endOffset()) + 1).join()).isEqualTo(e.endOffset());
    assertThat(rp.seekTimestamp(e, 0).join()).isEqualTo(BASE);
  }

  @Test
  void anEntryTheBatchIndexDisagreesWithIsCorruption() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    IndexEntry shifted =
        new IndexEntry(
            e.baseOffset() + 1,
            e.recordCount(),
            e.objectKey(),
            e.byteOffset(),
            e.byteLength(),
            e.maxTimestamp());
    Throwable t = catchThrowable(() -> rp.read(shifted, shifted.baseOffset(), 1).join());
    assertThat(t).hasCauseInstanceOf(CorruptionException.class);
    assertThat(t.getCause()).hasMessageContaining("does not match the offset index entry");
    IndexEntry midBatch =
        new IndexEntry(
            e.baseOffset(),
            e.recordCount(),
            e.objectKey(),
            e.byteOffset() + 1,
            e.byteLength() - 1,
            e.maxTimestamp());
    assertThat(catchThrowable(() -> rp.read(midBatch, BASE, 1).join()))
        .hasCauseInstanceOf(CorruptionException.class);
  }

  @Test
  void aDamagedFooterIsCorruptionNamingTheSegment() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    byte[] b = mem.get(e.objectKey()).join();
    b[b.length - 10] ^= 1;
    mem.put(e.objectKey(), b).join();
    Throwable t = catchThrowable(() -> rp.read(e, BASE, 1).join());
    assertThat(t.getCause())
        .isInstanceOf(CorruptionException.class)
        .hasMessageContaining("key=" + e.objectKey());
  }

  @Test
  void aDeletedSegmentIsObjectGoneSoTheFetchRetriesFromAFreshIndex() {
    IndexEntry e = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    IndexEntry other = segment(mem, "seg/1/0/50-c.seg", 100, 3, 200);
    rp.read(other, BASE, 1).join(); // index cached, then the object is deleted
    mem.delete(List.of(e.objectKey(), other.objectKey())).join();
    assertThat(ReadPath.isObjectGone(catchThrowable(() -> rp.read(e, BASE, 1).join()))).isTrue();
    assertThat(ReadPath.isObjectGone(catchThrowable(() -> rp.read(other, BASE + 200, 1).join())))
        .isTrue();
    assertThat(rp.segmentIndexes().size()).as("failures are not remembered").isEqualTo(1);
  }

  @Test
  void smallSegmentEntriesAreReadWholeWithoutTheIndex() {
    IndexEntry e = segment(mem, "seg/1/0/50-d.seg", 3, 2, 100);
    assertThat(e.byteLength()).isLessThanOrEqualTo(BLOCK);
    ReadPath.Slice s = rp.read(e, BASE + 3, 1).join();
    assertThat(s.baseOffset()).isEqualTo(BASE);
    assertThat(s.endOffset()).isEqualTo(e.endOffset());
    assertThat(stats.segmentIndexGets()).isZero();
    assertRecords(decode(s, BASE + 3), BASE + 3, 100);
  }

  @Test
  void theIndexCacheIsBoundedLeastRecentlyUsedFirst() {
    IndexEntry a = segment(mem, "seg/1/0/50-a.seg", 100, 3, 200);
    IndexEntry b = segment(mem, "seg/1/0/50-b.seg", 100, 3, 200);
    ReadPath probe =
        new ReadPath(store, new TailCache(0), null, new ReadCounters(), BLOCK, 1 << 20);
    probe.read(a, BASE, 1).join();
    long one = probe.segmentIndexes().bytes();
    assertThat(one).isPositive();
    ReadCounters st = new ReadCounters();
    ReadPath small = new ReadPath(store, new TailCache(0), null, st, BLOCK, one + one / 2);
    small.read(a, BASE, 1).join();
    small.read(b, BASE, 1).join();
    assertThat(small.segmentIndexes().size()).isEqualTo(1);
    assertThat(small.segmentIndexes().bytes()).isLessThanOrEqualTo(one + one / 2);
    small.read(b, BASE + 100, 1).join();
    assertThat(st.segmentIndexGets()).isEqualTo(2);
    small.read(a, BASE + 100, 1).join();
    assertThat(st.segmentIndexGets()).as("a was evicted").isEqualTo(3);
    ReadPath none = new ReadPath(store, new TailCache(0), null, new ReadCounters(), BLOCK, 10);
    assertRecords(decode(none.read(a, BASE + 7, 1).join(), BASE + 7), BASE + 7, 200);
    assertThat(none.segmentIndexes().size()).as("larger than the bound: used, not kept").isZero();
  }
}
