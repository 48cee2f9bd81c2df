package dev.loam.core.read;

import dev.loam.spi.store.StoreUnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Retries a read the store refused as transient — a {@link StoreUnavailableException}: throttling
 * ("503 Slow Down", "429"), a 5xx, a reset connection — so that a burst of throttling delays a
 * fetch instead of failing it (docs/design/read-path.md "Transient store errors"). Backoff doubles
 * from {@link #INITIAL_BACKOFF_MICROS} to {@link #MAX_BACKOFF_MICROS}; after {@link #MAX_ATTEMPTS}
 * attempts (about 2.3 s of waiting) the last error is the read's. Every other failure is final at
 * once: NOT_FOUND, CORRUPTION and the like do not heal by waiting.
 */
final class TransientRetry {
  static final int MAX_ATTEMPTS = 9;
  static final long INITIAL_BACKOFF_MICROS = 10_000;
  static final long MAX_BACKOFF_MICROS = 1_000_000;

  private final WalGetMerger.Delayer delayer;
  private final ReadCounters stats;

  /**
   * @param delayer runs the delayed attempts (the node's scheduler); null uses {@link
   *     CompletableFuture#delayedExecutor}
   */
  TransientRetry(WalGetMerger.Delayer delayer, ReadCounters stats) {
    this.delayer =
        delayer != null
            ? delayer
            : (micros, task) ->
                CompletableFuture.delayedExecutor(micros, TimeUnit.MICROSECONDS).execute(task);
    this.stats = stats;
  }

  /** The first result of {@code attempt} that is not a transient failure. */
  <T> CompletableFuture<T> run(Supplier<CompletableFuture<T>> attempt) {
    CompletableFuture<T> out = new CompletableFuture<>();
    attempt(attempt, 1, INITIAL_BACKOFF_MICROS, out);
    return out;
  }

  private <T> void attempt(
      Supplier<CompletableFuture<T>> attempt, int n, long backoff, CompletableFuture<T> out) {
    CompletableFuture<T> f;
    try {
      f = attempt.get();
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete(
        (v, t) -> {
          if (t == null) {
            out.complete(v);
            return;
          }
          Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
          if (!(c instanceof StoreUnavailableException) || n >= MAX_ATTEMPTS) {
            out.completeExceptionally(c);
            return;
          }
          stats.objectGetRetry();
          delayer.after(
              backoff,
              () -> attempt(attempt, n + 1, Math.min(backoff * 2, MAX_BACKOFF_MICROS), out));
        });
  }
}
