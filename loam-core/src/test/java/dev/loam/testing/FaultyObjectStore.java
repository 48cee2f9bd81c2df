package dev.loam.testing;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a real store and injects failures into {@code create}: 503-like refusals, writes that land
 * but whose answer is lost (outcome unknown), and slow writes (answered after {@link #SLOW_MILLIS},
 * so younger objects' PUTs finish first and their commits queue behind it). Counts GETs so tests
 * can see cache hits.
 */
public final class FaultyObjectStore extends ForwardingObjectStore {
  /** What to do with one create. */
  public enum Fault {
    NONE,
    UNAVAILABLE,
    WRITTEN_BUT_ANSWER_LOST,
    SLOW
  }

  /** How late a {@link Fault#SLOW} create is answered. */
  public static final long SLOW_MILLIS = 30;

  private final List<Fault> script = new ArrayList<>();
  private final AtomicInteger gets = new AtomicInteger();

  public FaultyObjectStore(ObjectStore delegate) {
    super(delegate);
  }

  public synchronized FaultyObjectStore script(List<Fault> faults) {
    script.clear();
    script.addAll(faults);
    return this;
  }

  private synchronized Fault next() {
    return script.isEmpty() ? Fault.NONE : script.remove(0);
  }

  public int gets() {
    return gets.get();
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return switch (next()) {
      case UNAVAILABLE ->
          CompletableFuture.failedFuture(new StoreUnavailableException("injected 503 key=" + key));
      case WRITTEN_BUT_ANSWER_LOST ->
          delegate
              .create(key, bytes)
              .thenApply(
                  v -> {
                    throw new StoreOutcomeUnknownException("injected timeout key=" + key);
                  });
      case SLOW ->
          CompletableFuture.runAsync(
                  () -> {}, CompletableFuture.delayedExecutor(SLOW_MILLIS, TimeUnit.MILLISECONDS))
              .thenCompose(v -> delegate.create(key, bytes));
      case NONE -> delegate.create(key, bytes);
    };
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    gets.incrementAndGet();
    return delegate.get(key);
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    gets.incrementAndGet();
    return delegate.get(key, offset, length);
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    gets.incrementAndGet();
    return delegate.getTail(key, length);
  }
}
