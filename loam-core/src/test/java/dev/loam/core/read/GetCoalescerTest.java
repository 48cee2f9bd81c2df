package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GetCoalescerTest {
  final ReadCounters stats = new ReadCounters();
  final AtomicInteger loads = new AtomicInteger();
  final List<CompletableFuture<byte[]>> pending = new ArrayList<>();

  CompletableFuture<byte[]> loader() {
    loads.incrementAndGet();
    CompletableFuture<byte[]> f = new CompletableFuture<>();
    pending.add(f);
    return f;
  }

  static byte[] bytes(int from, int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (from + i);
    }
    return b;
  }

  static final java.util.function.Function<byte[], CompletableFuture<?>> NOTHING =
      b -> CompletableFuture.completedFuture(null);

  @Test
  void sameAndContainedRangesShareOneLoad() {
    GetCoalescer c = new GetCoalescer(100, stats);
    var a = c.load("o", 100, 50, this::loader, NOTHING);
    var same = c.load("o", 100, 50, this::loader, NOTHING);
    var inside = c.load("o", 110, 10, this::loader, NOTHING);
    var otherObject = c.load("p", 100, 50, this::loader, NOTHING);
    var overlapping = c.load("o", 140, 20, this::loader, NOTHING);
    assertThat(loads.get()).isEqualTo(3);
    assertThat(stats.coalescedWaits()).isEqualTo(2);
    pending.get(0).complete(bytes(100, 50));
    assertThat(a.join()).isEqualTo(bytes(100, 50));
    assertThat(same.join()).isEqualTo(bytes(100, 50));
    assertThat(inside.join()).isEqualTo(bytes(110, 10));
    assertThat(otherObject).isNotDone();
    assertThat(overlapping).isNotDone();
  }

  @Test
  void entryStaysUntilTheFollowUpEndsThenLeaves() {
    GetCoalescer c = new GetCoalescer(100, stats);
    CompletableFuture<Void> diskWrite = new CompletableFuture<>();
    var a = c.load("o", 0, 4, this::loader, b -> diskWrite);
    pending.get(0).complete(bytes(0, 4));
    assertThat(a.join()).isEqualTo(bytes(0, 4));
    // Completed but the disk write is not done: a new reader still shares it.
    assertThat(c.load("o", 0, 4, this::loader, NOTHING).join()).isEqualTo(bytes(0, 4));
    assertThat(loads.get()).isEqualTo(1);
    diskWrite.complete(null);
    assertThat(c.inFlight()).isZero();
    c.load("o", 0, 4, this::loader, NOTHING);
    assertThat(loads.get()).isEqualTo(2);
  }

  @Test
  void failureReachesEveryWaiterAndIsNotRemembered() {
    GetCoalescer c = new GetCoalescer(100, stats);
    var a = c.load("o", 0, 4, this::loader, NOTHING);
    var b = c.load("o", 0, 4, this::loader, NOTHING);
    pending.get(0).completeExceptionally(new IllegalStateException("boom"));
    assertThatThrownBy(a::join).hasCauseInstanceOf(IllegalStateException.class);
    assertThatThrownBy(b::join).hasCauseInstanceOf(IllegalStateException.class);
    assertThat(c.inFlight()).isZero();
    c.load("o", 0, 4, this::loader, NOTHING);
    assertThat(loads.get()).isEqualTo(2);
  }

  @Test
  void beyondTheBoundReadersLoadAlone() {
    GetCoalescer c = new GetCoalescer(2, stats);
    c.load("o", 0, 4, this::loader, NOTHING);
    c.load("o", 10, 4, this::loader, NOTHING);
    c.load("o", 20, 4, this::loader, NOTHING);
    c.load("o", 20, 4, this::loader, NOTHING);
    assertThat(loads.get()).isEqualTo(4);
    assertThat(c.inFlight()).isEqualTo(2);
  }
}
