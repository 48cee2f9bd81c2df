package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.core.maintain.InvalidatingObjectStore;
import dev.loam.error.CorruptionException;
import dev.loam.meta.command.IndexEntry;
import dev.loam.store.memory.InMemoryObjectStore;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The WAL read-ahead (docs/design/read-path.md "Read tiers"): {@link WalReadAhead}. */
class WalReadAheadTest {
  static final int SPAN = 8 << 20;

  private static WalGetMerger merger(
      WalGetMergerTest.ManualStore store, ReadCounters stats, long bytes) {
    return new WalGetMerger(store, stats, SPAN, null, 0, new WalReadAhead(bytes, stats));
  }

  private static byte[] range(int offset, int length) {
    return WalGetMergerTest.range(offset, length);
  }

  @Test
  void aGetReadsTheWholeObjectAndALaterRangeOfAnotherPartitionNeedsNoGet() throws Exception {
    WalGetMergerTest.ManualStore store = new WalGetMergerTest.ManualStore();
    ReadCounters stats = new ReadCounters();
    WalGetMerger m = merger(store, stats, 1 << 20);
    CompletableFuture<byte[]> a = m.get("wal/a", 100, 50);
    assertThat(store.gets).hasSize(1);
    assertThat(store.gets.get(0).offset()).as("from the object's start").isZero();
    assertThat(store.gets.get(0).length()).as("up to the WAL object limit").isEqualTo(SPAN);
    CompletableFuture<byte[]> queued = m.get("wal/a", 700, 100);
    store.complete(0); // the store cuts the range at the object's end (1000 bytes)
    assertThat(a.get()).isEqualTo(range(100, 50));
    assertThat(queued.get()).as("queued behind the GET, served by it").isEqualTo(range(700, 100));
    assertThat(m.inFlight()).isZero();
    assertThat(stats.walReadAheadBytes()).isEqualTo(1000);

    assertThat(m.get("wal/a", 300, 200).get()).isEqualTo(range(300, 200));
    assertThat(m.get("wal/a", 0, 1000).get()).isEqualTo(range(0, 1000));
    assertThat(store.gets).as("no GET for later ranges").hasSize(1);
    assertThat(stats.walReadAheadHits()).isEqualTo(3);
    // A range past the end is cut, like a ranged GET of the store.
    assertThat(m.get("wal/a", 950, 100).get()).isEqualTo(range(950, 50));
    assertThat(m.get("wal/a", 1000, 10).get()).isEmpty();
    assertThat(store.gets).hasSize(1);
  }

  @Test
  void theHeldBytesAreNeverHandedOutThemselves() throws Exception {
    WalGetMergerTest.ManualStore store = new WalGetMergerTest.ManualStore();
    WalGetMerger m = merger(store, new ReadCounters(), 1 << 20);
    CompletableFuture<byte[]> whole = m.get("wal/a", 0, 1000);
    store.complete(0);
    whole.get()[0] ^= 1;
    byte[] again = m.get("wal/a", 0, 1000).get();
    assertThat(again).isEqualTo(range(0, 1000));
    again[1] ^= 1;
    assertThat(m.get("wal/a", 0, 1000).get()).isEqualTo(range(0, 1000));
    assertThat(store.gets).hasSize(1);
  }

  @Test
  void theByteBoundEvictsTheLeastRecentlyUsedObjectWhole() throws Exception {
    WalGetMergerTest.ManualStore store = new WalGetMergerTest.ManualStore();
    ReadCounters stats = new ReadCounters();
    WalGetMerger m = merger(store, stats, 2500); // objects are 1000 bytes: two fit
    for (String k : List.of("wal/a", "wal/b")) {
      CompletableFuture<byte[]> f = m.get(k, 0, 10);
      store.complete(store.gets.size() - 1);
      f.get();
    }
    assertThat(stats.walReadAheadBytes()).isEqualTo(2000);
    m.get("wal/a", 10, 10).get(); // a is now the most recently used
    CompletableFuture<byte[]> c = m.get("wal/c", 0, 10);
    store.complete(store.gets.size() - 1);
    c.get();
    assertThat(stats.walReadAheadBytes()).isEqualTo(2000);
    assertThat(stats.walReadAheadEvictions()).isEqualTo(1);
    int gets = store.gets.size();
    assertThat(m.get("wal/a", 500, 10).get()).isEqualTo(range(500, 10));
    assertThat(m.get("wal/c", 500, 10).get()).isEqualTo(range(500, 10));
    assertThat(store.gets).as("a and c held").hasSize(gets);
    CompletableFuture<byte[]> b = m.get("wal/b", 500, 10);
    assertThat(store.gets).as("b was evicted").hasSize(gets + 1);
    store.complete(gets);
    assertThat(b.get()).isEqualTo(range(500, 10));
    assertThat(stats.walReadAheadBytes()).isEqualTo(2000);
    assertThat(stats.walReadAheadEvictions()).isEqualTo(2);
  }

  @Test
  void anObjectLargerThanTheBoundIsServedButNotKept() throws Exception {
    WalGetMergerTest.ManualStore store = new WalGetMergerTest.ManualStore();
    ReadCounters stats = new ReadCounters();
    WalGetMerger m = merger(store, stats, 999);
    CompletableFuture<byte[]> a = m.get("wal/a", 0, 10);
    CompletableFuture<byte[]> q = m.get("wal/a", 900, 10);
    store.complete(0);
    assertThat(a.get()).isEqualTo(range(0, 10));
    assertThat(q.get()).isEqualTo(range(900, 10));
    assertThat(stats.walReadAheadBytes()).isZero();
    CompletableFuture<byte[]> again = m.get("wal/a", 0, 10);
    assertThat(store.gets).hasSize(2);
    store.complete(1);
    assertThat(again.get()).isEqualTo(range(0, 10));
  }

  @Test
  void aFailedGetFailsItsWaitersAndKeepsNothing() throws Exception {
    WalGetMergerTest.ManualStore store = new WalGetMergerTest.ManualStore();
    ReadCounters stats = new ReadCounters();
    WalGetMerger m = merger(store, stats, 1 << 20);
    CompletableFuture<byte[]> a = m.get("wal/a", 0, 10);
    CompletableFuture<byte[]> q = m.get("wal/a", 500, 10);
    store.gets.get(0).result().completeExceptionally(new IllegalStateException("boom"));
    assertThatThrownBy(a::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
    assertThat(stats.walReadAheadBytes()).isZero();
    assertThat(q).as("queued range goes out with the next GET").isNotDone();
    assertThat(store.gets).hasSize(2);
    store.complete(1);
    assertThat(q.get()).isEqualTo(range(500, 10));
    assertThat(m.get("wal/a", 20, 10).get())
        .as("the second GET was read ahead")
        .isEqualTo(range(20, 10));
    assertThat(store.gets).hasSize(2);
  }

  @Test
  void bytesEqualTheStoresRangedGetAndRewritesUseButDoNotFill() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore(java.time.InstantSource.system());
    byte[] object = new byte[300_000];
    new Random(7).nextBytes(object);
    store.create("wal/standard/n/obj.wal", object).join();
    store.create("wal/standard/n/other.wal", object).join();
    ReadCounters stats = new ReadCounters();
    ReadPath rp =
        new ReadPath(store, new TailCache(0), null, stats, 1 << 20, 1 << 20, null, 0, 1 << 20);
    Random r = new Random(11);
    for (int i = 0; i < 200; i++) {
      int off = r.nextInt(object.length);
      int len = 1 + r.nextInt(40_000);
      byte[] want = store.get("wal/standard/n/obj.wal", off, len).join();
      if (want.length == len) {
        assertThat(rp.loadRange("wal/standard/n/obj.wal", off, len).get()).isEqualTo(want);
      } else {
        // Past the end: the read path reports the short object, as for a ranged GET.
        assertThatThrownBy(() -> rp.loadRange("wal/standard/n/obj.wal", off, len).get())
            .hasCauseInstanceOf(CorruptionException.class);
      }
    }
    assertThat(stats.objectGets()).as("one GET of the whole object").isEqualTo(1);
    assertThat(stats.objectGetBytes()).isEqualTo(object.length);

    // The segmenter's loads use what is held, and add nothing.
    IndexEntry held = entry("wal/standard/n/obj.wal", 1000, 5000);
    assertThat(rp.loadForRewrite(held).get()).isEqualTo(slice(object, 1000, 5000));
    assertThat(stats.objectGets()).isEqualTo(1);
    IndexEntry other = entry("wal/standard/n/other.wal", 1000, 5000);
    assertThat(rp.loadForRewrite(other).get()).isEqualTo(slice(object, 1000, 5000));
    assertThat(stats.objectGets()).isEqualTo(2);
    assertThat(stats.objectGetBytes()).as("a GET of just the entry").isEqualTo(300_000 + 5000);
    assertThat(rp.readAhead().objects()).isEqualTo(1);
    assertThat(stats.walReadAheadBytes()).isEqualTo(object.length);

    // GC's delete drops the object.
    new InvalidatingObjectStore(store, null, rp).delete(List.of("wal/standard/n/obj.wal")).join();
    assertThat(stats.walReadAheadBytes()).isZero();
    assertThatThrownBy(() -> rp.loadRange("wal/standard/n/obj.wal", 0, 10).get())
        .hasCauseInstanceOf(ObjectGoneException.class);
  }

  @Test
  void segmentReadsAreNotReadAhead() throws Exception {
    InMemoryObjectStore store = new InMemoryObjectStore(java.time.InstantSource.system());
    byte[] object = new byte[100_000];
    new Random(3).nextBytes(object);
    store.create("seg/1/0/0-x.seg", object).join();
    ReadCounters stats = new ReadCounters();
    ReadPath rp =
        new ReadPath(store, new TailCache(0), null, stats, 1 << 20, 1 << 20, null, 0, 1 << 20);
    assertThat(rp.loadRange("seg/1/0/0-x.seg", 100, 1000).get())
        .isEqualTo(slice(object, 100, 1000));
    assertThat(stats.objectGetBytes()).isEqualTo(1000);
    assertThat(stats.walReadAheadBytes()).isZero();
  }

  private static byte[] slice(byte[] b, int off, int len) {
    return java.util.Arrays.copyOfRange(b, off, off + len);
  }

  private static IndexEntry entry(String key, long offset, int length) {
    return new IndexEntry(0, 1, key, offset, length, 0);
  }
}
