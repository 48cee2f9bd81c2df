package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class WalGetMergerTest {
  static final byte[] OBJECT = new byte[1000];

  static {
    for (int i = 0; i < OBJECT.length; i++) {
      OBJECT[i] = (byte) (i * 7 + 3);
    }
  }

  /** A store whose GETs complete only when the test says so. */
  static final class ManualStore implements WalGetMerger.Getter {
    record Get(String key, long offset, int length, CompletableFuture<byte[]> result) {}

    final List<Get> gets = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<byte[]> get(String key, long offset, int length) {
      Get g = new Get(key, offset, length, new CompletableFuture<>());
      gets.add(g);
      return g.result();
    }

    void complete(int i) {
      Get g = gets.get(i);
      int end = (int) Math.min(OBJECT.length, g.offset() + g.length());
      g.result().complete(Arrays.copyOfRange(OBJECT, (int) g.offset(), end));
    }
  }

  static byte[] range(int offset, int length) {
    return Arrays.copyOfRange(OBJECT, offset, offset + length);
  }

  @Test
  void anIdleObjectsRangeGoesOutAtOnceAlone() throws Exception {
    ManualStore store = new ManualStore();
    WalGetMerger m = new WalGetMerger(store, new ReadCounters(), 8 << 20);
    CompletableFuture<byte[]> a = m.get("wal/a", 100, 50);
    assertThat(store.gets).hasSize(1);
    assertThat(store.gets.get(0).offset()).isEqualTo(100);
    assertThat(store.gets.get(0).length()).isEqualTo(50);
    store.complete(0);
    assertThat(a.get()).isEqualTo(range(100, 50));
    assertThat(m.inFlight()).isZero();
  }

  @Test
  void rangesAskedForDuringAGetGoOutTogetherInOneCoveringGet() throws Exception {
    ManualStore store = new ManualStore();
    ReadCounters stats = new ReadCounters();
    WalGetMerger m = new WalGetMerger(store, stats, 8 << 20);
    CompletableFuture<byte[]> first = m.get("wal/a", 0, 100);
    CompletableFuture<byte[]> b = m.get("wal/a", 500, 100);
    CompletableFuture<byte[]> c = m.get("wal/a", 200, 50);
    CompletableFuture<byte[]> d = m.get("wal/a", 900, 100);
    CompletableFuture<byte[]> other = m.get("wal/other", 0, 10);
    assertThat(store.gets).as("one GET per object in flight").hasSize(2);
    assertThat(b).isNotDone();
    store.complete(0);
    assertThat(first.get()).isEqualTo(range(0, 100));
    assertThat(store.gets).hasSize(3);
    ManualStore.Get merged = store.gets.get(2);
    assertThat(merged.key()).isEqualTo("wal/a");
    assertThat(merged.offset()).isEqualTo(200);
    assertThat(merged.length()).isEqualTo(800);
    store.complete(2);
    assertThat(b.get()).isEqualTo(range(500, 100));
    assertThat(c.get()).isEqualTo(range(200, 50));
    assertThat(d.get()).isEqualTo(range(900, 100));
    assertThat(other).isNotDone();
    assertThat(stats.walMergedGets()).isEqualTo(1);
    assertThat(stats.walMergedRanges()).isEqualTo(3);
    store.complete(1);
    assertThat(other.get()).isEqualTo(range(0, 10));
    assertThat(m.inFlight()).isZero();
  }

  @Test
  void aMergedGetSpansAtMostMaxSpanTheRestGoesNext() throws Exception {
    ManualStore store = new ManualStore();
    WalGetMerger m = new WalGetMerger(store, new ReadCounters(), 300);
    m.get("wal/a", 0, 10);
    CompletableFuture<byte[]> far = m.get("wal/a", 700, 100);
    CompletableFuture<byte[]> near1 = m.get("wal/a", 100, 100);
    CompletableFuture<byte[]> near2 = m.get("wal/a", 300, 100);
    store.complete(0);
    assertThat(store.gets).hasSize(2);
    assertThat(store.gets.get(1).offset()).isEqualTo(100);
    assertThat(store.gets.get(1).length()).isEqualTo(300);
    store.complete(1);
    assertThat(near1.get()).isEqualTo(range(100, 100));
    assertThat(near2.get()).isEqualTo(range(300, 100));
    assertThat(store.gets).hasSize(3);
    assertThat(store.gets.get(2).offset()).isEqualTo(700);
    assertThat(store.gets.get(2).length()).isEqualTo(100);
    store.complete(2);
    assertThat(far.get()).isEqualTo(range(700, 100));
  }

  @Test
  void aFailedGetFailsEveryRangeItServedAndTheQueueGoesOn() throws Exception {
    ManualStore store = new ManualStore();
    WalGetMerger m = new WalGetMerger(store, new ReadCounters(), 8 << 20);
    m.get("wal/a", 0, 10);
    CompletableFuture<byte[]> x = m.get("wal/a", 100, 10);
    CompletableFuture<byte[]> y = m.get("wal/a", 200, 10);
    store.complete(0);
    CompletableFuture<byte[]> z = m.get("wal/a", 300, 10);
    store.gets.get(1).result().completeExceptionally(new IllegalStateException("503"));
    for (CompletableFuture<byte[]> f : List.of(x, y)) {
      assertThat(f).isCompletedExceptionally();
      try {
        f.get();
      } catch (ExecutionException e) {
        assertThat(e.getCause()).hasMessage("503");
      }
    }
    assertThat(store.gets).hasSize(3);
    store.complete(2);
    assertThat(z.get()).isEqualTo(range(300, 10));
    assertThat(m.inFlight()).isZero();
  }

  @Test
  void withAGatherWindowAnIdleObjectsRangesWaitForItAndGoOutTogether() throws Exception {
    ManualStore store = new ManualStore();
    List<Runnable> timers = new ArrayList<>();
    List<Long> delays = new ArrayList<>();
    WalGetMerger m =
        new WalGetMerger(
            store,
            new ReadCounters(),
            8 << 20,
            (micros, task) -> {
              delays.add(micros);
              timers.add(task);
            },
            2000);
    CompletableFuture<byte[]> a = m.get("wal/a", 400, 100);
    CompletableFuture<byte[]> b = m.get("wal/a", 0, 100);
    CompletableFuture<byte[]> c = m.get("wal/b", 0, 10);
    assertThat(store.gets).as("nothing before the window ends").isEmpty();
    assertThat(delays).containsExactly(2000L, 2000L);
    timers.get(0).run();
    assertThat(store.gets).hasSize(1);
    assertThat(store.gets.get(0).offset()).isEqualTo(0);
    assertThat(store.gets.get(0).length()).isEqualTo(500);
    // Asked for while the GET is in flight: waits for it, no second window.
    CompletableFuture<byte[]> d = m.get("wal/a", 700, 10);
    store.complete(0);
    assertThat(a.get()).isEqualTo(range(400, 100));
    assertThat(b.get()).isEqualTo(range(0, 100));
    assertThat(store.gets).hasSize(2);
    assertThat(timers).hasSize(2);
    store.complete(1);
    assertThat(d.get()).isEqualTo(range(700, 10));
    timers.get(1).run();
    store.complete(2);
    assertThat(c.get()).isEqualTo(range(0, 10));
    assertThat(m.inFlight()).isZero();
  }

  @Test
  void aRangePastTheObjectsEndIsCutLikeARangedGet() throws Exception {
    ManualStore store = new ManualStore();
    WalGetMerger m = new WalGetMerger(store, new ReadCounters(), 8 << 20);
    m.get("wal/a", 0, 10);
    CompletableFuture<byte[]> past = m.get("wal/a", 950, 100);
    CompletableFuture<byte[]> in = m.get("wal/a", 900, 20);
    store.complete(0);
    store.complete(1);
    assertThat(past.get()).isEqualTo(range(950, 50));
    assertThat(in.get()).isEqualTo(range(900, 20));
  }
}
