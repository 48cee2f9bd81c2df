package dev.loam.examples;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.ForwardingObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code test-slow://mem?createMs=N}: an in-memory store whose every {@code create} (how WAL
 * objects and segments are written) answers {@code N} ms late, as a distant or throttled store
 * does. Counts the WAL objects it stored. Registered for the tests of this module only.
 */
public final class SlowStoreProvider implements ObjectStoreProvider {
  /** The store the last {@code open} returned. */
  static final AtomicReference<SlowStore> LAST = new AtomicReference<>();

  @Override
  public Set<String> schemes() {
    return Set.of("test-slow");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    String q = uri.getQuery() == null ? "" : uri.getQuery();
    long createMs = 0;
    for (String kv : q.split("&")) {
      if (kv.startsWith("createMs=")) {
        createMs = Long.parseLong(kv.substring("createMs=".length()));
      }
    }
    SlowStore s = new SlowStore(new InMemoryObjectStore(context.clock()), createMs);
    LAST.set(s);
    return s;
  }

  /** The delaying wrapper. */
  static final class SlowStore extends ForwardingObjectStore {
    private final long createMs;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    final AtomicLong walObjects = new AtomicLong();
    final AtomicLong maxPendingCreates = new AtomicLong();
    private final AtomicLong pending = new AtomicLong();

    SlowStore(ObjectStore delegate, long createMs) {
      super(delegate);
      this.createMs = createMs;
    }

    @Override
    public CompletableFuture<Void> create(String key, byte[] bytes) {
      maxPendingCreates.accumulateAndGet(pending.incrementAndGet(), Math::max);
      CompletableFuture<Void> out = new CompletableFuture<>();
      timer.schedule(
          () ->
              delegate
                  .create(key, bytes)
                  .whenComplete(
                      (v, t) -> {
                        pending.decrementAndGet();
                        if (t != null) {
                          out.completeExceptionally(t);
                          return;
                        }
                        if (key.startsWith("wal/")) {
                          walObjects.incrementAndGet();
                        }
                        out.complete(v);
                      }),
          createMs,
          TimeUnit.MILLISECONDS);
      return out;
    }

    @Override
    public void close() {
      timer.shutdownNow();
      super.close();
    }
  }
}
