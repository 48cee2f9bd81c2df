package dev.loam.core.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.StoreUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TransientRetryTest {
  private final List<Long> delays = new ArrayList<>();
  private final ReadCounters stats = new ReadCounters();
  // Runs delayed attempts at once, recording the delay asked for.
  private final TransientRetry retry =
      new TransientRetry(
          (micros, task) -> {
            delays.add(micros);
            task.run();
          },
          stats);

  @Test
  void aBurstOfThrottlingIsRetriedWithDoublingBackoff() {
    AtomicInteger calls = new AtomicInteger();
    byte[] got =
        retry
            .run(
                () ->
                    calls.incrementAndGet() <= 4
                        ? CompletableFuture.<byte[]>failedFuture(
                            new StoreUnavailableException("503 Slow Down"))
                        : CompletableFuture.completedFuture(new byte[] {7}))
            .join();
    assertThat(got).containsExactly(7);
    assertThat(calls).hasValue(5);
    assertThat(delays).containsExactly(10_000L, 20_000L, 40_000L, 80_000L);
    assertThat(stats.objectGetRetries()).isEqualTo(4);
  }

  @Test
  void aThrowingAttemptCountsAsAFailedOne() {
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<Integer> f =
        retry.run(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw new StoreUnavailableException("connection reset");
              }
              return CompletableFuture.completedFuture(1);
            });
    assertThat(f.join()).isEqualTo(1);
    assertThat(calls).hasValue(2);
  }

  @Test
  void persistentThrottlingFailsUnavailableAfterTheLastAttempt() {
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<byte[]> f =
        retry.run(
            () -> {
              calls.incrementAndGet();
              return CompletableFuture.failedFuture(new StoreUnavailableException("503 Slow Down"));
            });
    assertThatThrownBy(f::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(StoreUnavailableException.class)
        .hasMessageContaining("Slow Down");
    assertThat(calls).hasValue(TransientRetry.MAX_ATTEMPTS);
    assertThat(delays).hasSize(TransientRetry.MAX_ATTEMPTS - 1).last().isEqualTo(1_000_000L);
    assertThat(delays.stream().mapToLong(Long::longValue).sum()).isBetween(2_000_000L, 2_600_000L);
  }

  @Test
  void permanentFailuresAreNotRetried() {
    for (LoamException e :
        List.<LoamException>of(
            new ObjectNotFoundException("gone"), new CorruptionException("bad crc"))) {
      AtomicInteger calls = new AtomicInteger();
      CompletableFuture<byte[]> f =
          retry.run(
              () -> {
                calls.incrementAndGet();
                return CompletableFuture.failedFuture(e);
              });
      assertThatThrownBy(f::join).cause().isSameAs(e);
      assertThat(calls).hasValue(1);
    }
    assertThat(delays).isEmpty();
  }
}
