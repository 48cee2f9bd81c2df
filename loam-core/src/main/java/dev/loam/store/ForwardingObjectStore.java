package dev.loam.store;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * An object store that forwards every call to another, closing included: the base for wrappers that
 * observe, route or break one call (a cache invalidator, a fault or latency injector, a test
 * double) without restating the rest of the SPI. A wrapper that does not own its delegate overrides
 * {@link #close()}.
 */
public class ForwardingObjectStore implements ObjectStore {
  /** The store every call goes to. */
  protected final ObjectStore delegate;

  public ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
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
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return delegate.get(key, offset, length);
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
