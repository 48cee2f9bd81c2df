package dev.loam.testing;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * A store that can be switched off: while down, every call fails UNAVAILABLE (a lost zone). It can
 * also throttle reads: the next N GETs fail as S3's "503 Slow Down" does.
 */
public final class SwitchableObjectStore implements ObjectStore {
  private final ObjectStore delegate;
  private volatile boolean down;
  private final java.util.concurrent.atomic.AtomicInteger throttledReads =
      new java.util.concurrent.atomic.AtomicInteger();

  public SwitchableObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  public void down(boolean d) {
    this.down = d;
  }

  /** The next {@code n} GETs (whole, ranged or tail) fail with a transient throttling error. */
  public void throttleNextReads(int n) {
    throttledReads.set(n);
  }

  private <T> CompletableFuture<T> read(Supplier<CompletableFuture<T>> op) {
    if (throttledReads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("503 Slow Down: reduce your request rate (test)"));
    }
    return call(op);
  }

  public ObjectStore delegate() {
    return delegate;
  }

  private <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> op) {
    return down
        ? CompletableFuture.failedFuture(new StoreUnavailableException("zone is down (test)"))
        : op.get();
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return call(() -> delegate.create(key, bytes));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return call(() -> delegate.put(key, bytes));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return read(() -> delegate.get(key));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return read(() -> delegate.get(key, offset, length));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return read(() -> delegate.getTail(key, length));
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return call(() -> delegate.head(key));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    return call(() -> delegate.list(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    return call(() -> delegate.delete(keys));
  }

  @Override
  public void close() {
    delegate.close();
  }
}
