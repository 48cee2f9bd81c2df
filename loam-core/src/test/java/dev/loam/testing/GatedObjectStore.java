package dev.loam.testing;

import dev.loam.spi.store.ObjectStore;
import dev.loam.store.ForwardingObjectStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a store and, while closed, holds every ranged GET until {@link #releaseAll()}; counts
 * ranged GETs. Lets a test line up concurrent readers behind one GET deterministically.
 */
public final class GatedObjectStore extends ForwardingObjectStore {
  private final AtomicInteger rangedGets = new AtomicInteger();
  private final List<Runnable> held = new ArrayList<>();
  private boolean closedGate;

  public GatedObjectStore(ObjectStore delegate) {
    super(delegate);
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
}
