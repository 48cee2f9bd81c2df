package dev.loam.core.write;

import dev.loam.core.ObjectLayout;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One node's view of its stores: express WAL objects ({@code wal/express/…}) live in the express
 * store, everything else (standard WAL objects, segments) in the standard store. A listing goes to
 * the store its prefix belongs to, so callers list per class prefix ({@code wal/standard/}, {@code
 * wal/express/}, {@code seg/}). Closing is left to the owners of the two stores.
 */
public final class ClassRoutingObjectStore implements ObjectStore {
  private final ObjectStore standard;
  private final ObjectStore express;

  public ClassRoutingObjectStore(ObjectStore standard, ObjectStore express) {
    this.standard = standard;
    this.express = express;
  }

  private ObjectStore route(String key) {
    return ObjectLayout.isExpressWal(key) ? express : standard;
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return route(key).create(key, bytes);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return route(key).put(key, bytes);
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return route(key).get(key);
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return route(key).get(key, offset, length);
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return route(key).getTail(key, length);
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return route(key).head(key);
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    return route(prefix).list(prefix, startAfter, maxKeys);
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    List<String> toExpress = new ArrayList<>();
    List<String> toStandard = new ArrayList<>();
    for (String k : keys) {
      (ObjectLayout.isExpressWal(k) ? toExpress : toStandard).add(k);
    }
    CompletableFuture<List<DeleteFailure>> a =
        toStandard.isEmpty()
            ? CompletableFuture.completedFuture(List.of())
            : standard.delete(toStandard);
    CompletableFuture<List<DeleteFailure>> b =
        toExpress.isEmpty()
            ? CompletableFuture.completedFuture(List.of())
            : express.delete(toExpress);
    return a.thenCombine(
        b,
        (x, y) -> {
          List<DeleteFailure> all = new ArrayList<>(x);
          all.addAll(y);
          return all;
        });
  }

  @Override
  public void close() {
    // The node closes the stores it owns.
  }
}
