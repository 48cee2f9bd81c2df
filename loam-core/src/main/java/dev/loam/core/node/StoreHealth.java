package dev.loam.core.node;

import dev.loam.api.NodeHealth;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Watches the outcomes of a node's calls to one object store, for its readiness ({@link
 * NodeHealth}): the store is reported unreachable while the most recent call that completed failed
 * as unreachable (a {@code LoamException} of kind UNAVAILABLE or OUTCOME_UNKNOWN, or an I/O error),
 * for at most {@link NodeHealth#STORE_FAILURE_HOLD_MILLIS} after it. An answer such as "not found"
 * or "exists" proves the store was reached and counts as a success. Sends nothing of its own.
 */
final class StoreHealth extends ForwardingObjectStore {
  private final String name;
  private final InstantSource clock;
  // Guarded by this.
  private long lastSuccessMillis = Long.MIN_VALUE;
  private long lastFailureMillis = Long.MIN_VALUE;
  private String lastFailure;

  StoreHealth(ObjectStore delegate, String name, InstantSource clock) {
    super(delegate);
    this.name = name;
    this.clock = clock;
  }

  /** Why the store looks unreachable now, or empty. */
  synchronized Optional<String> unreachableReason() {
    long now = clock.millis();
    if (lastFailure == null
        || lastSuccessMillis >= lastFailureMillis
        || now - lastFailureMillis >= NodeHealth.STORE_FAILURE_HOLD_MILLIS) {
      return Optional.empty();
    }
    return Optional.of(
        "the last "
            + name
            + " call failed "
            + (now - lastFailureMillis)
            + " ms ago: "
            + lastFailure
            + " holdMillis="
            + NodeHealth.STORE_FAILURE_HOLD_MILLIS);
  }

  private <T> CompletableFuture<T> watch(CompletableFuture<T> f) {
    f.whenComplete((v, e) -> record(e));
    return f;
  }

  private void record(Throwable e) {
    Throwable c = e;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    boolean unreachable =
        c != null
            && (c instanceof IOException
                || c instanceof UncheckedIOException
                || (c instanceof LoamException le
                    && (le.kind() == Kind.UNAVAILABLE || le.kind() == Kind.OUTCOME_UNKNOWN)));
    long now = clock.millis();
    synchronized (this) {
      if (unreachable) {
        lastFailureMillis = now;
        lastFailure = c.getMessage();
      } else {
        lastSuccessMillis = now;
      }
    }
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return watch(delegate.create(key, bytes));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return watch(delegate.put(key, bytes));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return watch(delegate.get(key));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return watch(delegate.get(key, offset, length));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return watch(delegate.getTail(key, length));
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return watch(delegate.head(key));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    return watch(delegate.list(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    return watch(delegate.delete(keys));
  }
}
