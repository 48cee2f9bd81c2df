package dev.loam.bench.load;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.TailRead;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * An {@link ObjectStore} decorator that makes every call take a sampled latency and counts calls
 * and bytes. The delegate runs at once; the returned future completes at {@code max(delegate done,
 * call start + sampled latency)}, so the latency seen is the preset's distribution with the real
 * store's own time as a floor. Delays run on the bench's own scheduler, never the node's.
 */
public final class LatencyInjectingStore implements ObjectStore {
  private final ObjectStore delegate;
  private final LatencyModel.Profile profile;
  private final ScheduledExecutorService scheduler;
  private final SplittableRandom random;
  private final boolean closeDelegate;

  private final LongAdder puts = new LongAdder();
  private final LongAdder putBytes = new LongAdder();
  private final LongAdder gets = new LongAdder();
  private final LongAdder getBytes = new LongAdder();
  private final LongAdder others = new LongAdder();

  /**
   * @param scheduler the bench's scheduler that completes delayed calls (not shut down here)
   * @param seed seed of the latency samples
   * @param closeDelegate whether {@link #close()} closes the delegate
   */
  public LatencyInjectingStore(
      ObjectStore delegate,
      LatencyModel.Profile profile,
      ScheduledExecutorService scheduler,
      long seed,
      boolean closeDelegate) {
    this.delegate = delegate;
    this.profile = profile;
    this.scheduler = scheduler;
    this.random = new SplittableRandom(seed);
    this.closeDelegate = closeDelegate;
  }

  /** Calls counted so far. */
  public record Counts(long puts, long putBytes, long gets, long getBytes, long others) {
    public Counts minus(Counts o) {
      return new Counts(
          puts - o.puts,
          putBytes - o.putBytes,
          gets - o.gets,
          getBytes - o.getBytes,
          others - o.others);
    }

    public Counts plus(Counts o) {
      return new Counts(
          puts + o.puts,
          putBytes + o.putBytes,
          gets + o.gets,
          getBytes + o.getBytes,
          others + o.others);
    }

    public static final Counts ZERO = new Counts(0, 0, 0, 0, 0);
  }

  public Counts counts() {
    return new Counts(puts.sum(), putBytes.sum(), gets.sum(), getBytes.sum(), others.sum());
  }

  private long sample(LatencyModel m) {
    if (m.isNone()) {
      return 0;
    }
    synchronized (random) {
      return m.sampleNanos(random);
    }
  }

  private <T> CompletableFuture<T> delayed(LatencyModel m, CompletableFuture<T> call) {
    long delay = sample(m);
    if (delay <= 0) {
      return call;
    }
    long due = System.nanoTime() + delay;
    CompletableFuture<T> out = new CompletableFuture<>();
    call.whenComplete(
        (v, e) -> {
          long left = due - System.nanoTime();
          Runnable finish =
              () -> {
                if (e != null) {
                  out.completeExceptionally(e);
                } else {
                  out.complete(v);
                }
              };
          if (left <= 0) {
            finish.run();
          } else {
            scheduler.schedule(finish, left, TimeUnit.NANOSECONDS);
          }
        });
    return out;
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    puts.increment();
    putBytes.add(bytes.length);
    return delayed(profile.put(), delegate.create(key, bytes));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    puts.increment();
    putBytes.add(bytes.length);
    return delayed(profile.put(), delegate.put(key, bytes));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    gets.increment();
    return delayed(profile.get(), delegate.get(key).thenApply(this::countGet));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    gets.increment();
    return delayed(profile.get(), delegate.get(key, offset, length).thenApply(this::countGet));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    gets.increment();
    return delayed(profile.get(), delegate.getTail(key, length));
  }

  private byte[] countGet(byte[] b) {
    getBytes.add(b.length);
    return b;
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    others.increment();
    return delayed(profile.get(), delegate.head(key));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    others.increment();
    return delayed(profile.get(), delegate.list(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    others.increment();
    return delayed(profile.put(), delegate.delete(keys));
  }

  @Override
  public void close() {
    if (closeDelegate) {
      delegate.close();
    }
  }
}
