package dev.loam.testing;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a store and, while closed, holds every ranged GET until {@link #releaseAll()}; counts
 * ranged GETs. Lets a test line up concurrent readers behind one GET deterministically.
 */
public final class GatedObjectStore implements ObjectStore {
  private final ObjectStore delegate;
  private final AtomicInteger rangedGets = new AtomicInteger();
  private final List<Runnable> held = new ArrayList<>();
  private boolean closedGate;

  public GatedObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  public synchronized void closeGate() {
    closedGate = true;
  }

  public synchronized int held() {
    return held.size();
  }

  /** Releases the held GETs (the gate stays as it is). */
  public void releaseAll() {
    List<Runnable> rs;
    synchronized (this) {
      rs = new ArrayList<>(held);
      held.clear();
    }
    rs.forEach(Runnable::run);
  }

  public void openGate() {
    synchronized (this) {
      closedGate = false;
    }
    releaseAll();
  }

  public int rangedGets() {
    return rangedGets.get();
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    rangedGets.incrementAndGet();
    CompletableFuture<byte[]> out = new CompletableFuture<>();
    Runnable go =
        () ->
            delegate
                .get(key, offset, length)
                .whenComplete(
                    (b, t) -> {
                      if (t != null) {
                        out.completeExceptionally(t);
                      } else {
                        out.complete(b);
                      }
                    });
    synchronized (this) {
      if (closedGate) {
        held.add(go);
        return out;
      }
    }
    go.run();
    return out;
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return delegate.create(key, bytes);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return delegate.put(key, bytes);
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return delegate.get(key);
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return delegate.getTail(key, length);
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return delegate.head(key);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    return delegate.list(prefix, startAfter, maxKeys);
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    return delegate.delete(keys);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
