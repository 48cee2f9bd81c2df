package dev.loam.store.tck;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * The lifecycle and helpers every case of the kit uses: the store under test, the extra handles a
 * case opens on its bucket, and assertions that a call failed through its future. Extend {@link
 * ObjectStoreContractTest}, not this class.
 */
public abstract class ContractSupport {
  private static final TimeUnit MILLIS = TimeUnit.MILLISECONDS;

  /** The store under test; fresh and empty for each case. */
  protected ObjectStore store;

  private final List<ObjectStore> otherHandles = new ArrayList<>();

  /** A new store on a fresh, empty bucket (or prefix). Called once before each case. */
  protected abstract ObjectStore newStore() throws Exception;

  /**
   * A second, independent handle on the bucket (or prefix) of the store {@link #newStore()}
   * returned last, opened the way another node of the cluster would open it: its own client,
   * connections and caches. A store that lives in one process only (in memory) may return {@link
   * #handleSharing(ObjectStore)} of the store. The kit closes it after the case.
   */
  protected abstract ObjectStore openAnotherHandle() throws Exception;

  /** How long to wait for one future; raise it for a remote store. */
  protected Duration timeout() {
    return Duration.ofSeconds(30);
  }

  /** How many threads race in the concurrent-create cases. */
  protected int racingWriters() {
    return 16;
  }

  @BeforeEach
  void openStore() throws Exception {
    store = newStore();
  }

  @AfterEach
  void closeStores() {
    for (ObjectStore other : otherHandles) {
      other.close();
    }
    otherHandles.clear();
    if (store != null) {
      store.close();
    }
  }

  /** Opens a second handle on the store's bucket; the kit closes it after the case. */
  protected ObjectStore anotherHandle() {
    try {
      ObjectStore other = openAnotherHandle();
      assertThat(other).as("openAnotherHandle()").isNotNull().isNotSameAs(store);
      otherHandles.add(other);
      return other;
    } catch (Exception e) {
      throw new AssertionError("openAnotherHandle() failed: " + e, e);
    }
  }

  /**
   * A handle on {@code shared} whose {@code close()} closes only the handle (later calls through it
   * fail with unavailable) and leaves {@code shared} open: the second handle of a store that lives
   * in one process, such as an in-memory store.
   */
  protected static ObjectStore handleSharing(ObjectStore shared) {
    return new SharedHandle(shared);
  }

  /**
   * Races {@code writers} creates of {@code key}, each through {@code handleOf.apply(writer)},
   * released together. Returns each writer's outcome, in writer order: empty for a win, else the
   * failure. Writer {@code w} writes {@link #racerBytes(String, int)}.
   */
  protected List<Optional<Throwable>> raceCreates(
      String key, int writers, IntFunction<ObjectStore> handleOf) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      CountDownLatch ready = new CountDownLatch(writers);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Optional<Throwable>>> futures = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        ObjectStore handle = handleOf.apply(w);
        byte[] mine = racerBytes(key, w);
        futures.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  assertThat(go.await(timeout().toMillis(), MILLIS)).isTrue();
                  return outcome(handle.create(key, mine));
                }));
      }
      assertThat(ready.await(timeout().toMillis(), MILLIS)).isTrue();
      go.countDown();
      List<Optional<Throwable>> outcomes = new ArrayList<>();
      for (Future<Optional<Throwable>> f : futures) {
        outcomes.add(f.get(timeout().toMillis() * 2, MILLIS));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  /** What writer {@code writer} writes in {@link #raceCreates}. */
  protected static byte[] racerBytes(String key, int writer) {
    return bytes("writer-" + writer + "-of-" + key);
  }

  /** The writers whose outcome is a win. */
  protected static List<Integer> winners(List<Optional<Throwable>> outcomes) {
    List<Integer> winners = new ArrayList<>();
    for (int w = 0; w < outcomes.size(); w++) {
      if (outcomes.get(w).isEmpty()) {
        winners.add(w);
      }
    }
    return winners;
  }

  /** Every operation on {@code key}, by name, for checks that must hold for all of them. */
  protected Map<String, Supplier<CompletableFuture<?>>> operationsOn(String key) {
    Map<String, Supplier<CompletableFuture<?>>> ops = new LinkedHashMap<>();
    ops.put("create", () -> store.create(key, bytes("x")));
    ops.put("put", () -> store.put(key, bytes("x")));
    ops.put("get", () -> store.get(key));
    ops.put("rangedGet", () -> store.get(key, 0, 1));
    ops.put("getTail", () -> store.getTail(key, 1));
    ops.put("head", () -> store.head(key));
    return ops;
  }

  /** The value of {@code future}, failing the case if it fails or takes longer than the timeout. */
  protected <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(timeout().toMillis(), MILLIS);
    } catch (ExecutionException e) {
      throw new AssertionError("expected success, got " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no result within " + timeout(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Calls {@code call} and asserts that it returned a future which failed with {@code type}, rather
   * than throwing or succeeding. Returns the failure.
   */
  protected <E extends Throwable> E assertFailsWith(
      Class<E> type, Supplier<? extends CompletableFuture<?>> call) {
    CompletableFuture<?> future;
    try {
      future = call.get();
    } catch (RuntimeException e) {
      throw new AssertionError("threw instead of failing its future: " + e, e);
    }
    Optional<Throwable> failure = outcome(future);
    if (failure.isEmpty()) {
      return fail("expected a future failed with %s, but it succeeded", type.getSimpleName());
    }
    assertThat(failure.get()).isInstanceOf(type);
    return type.cast(failure.get());
  }

  /** Empty if {@code future} succeeded, else its failure (unwrapped). */
  protected Optional<Throwable> outcome(CompletableFuture<?> future) {
    try {
      future.get(timeout().toMillis(), MILLIS);
      return Optional.empty();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      return Optional.of(cause);
    } catch (TimeoutException e) {
      throw new AssertionError("no result within " + timeout(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Every object under {@code prefix}, following pages of {@code maxKeys}. */
  protected List<ObjectInfo> listAll(String prefix, int maxKeys) {
    return listAll(store, prefix, maxKeys);
  }

  /** Every object under {@code prefix} in {@code handle}, following pages of {@code maxKeys}. */
  protected List<ObjectInfo> listAll(ObjectStore handle, String prefix, int maxKeys) {
    List<ObjectInfo> all = new ArrayList<>();
    String startAfter = "";
    for (int pages = 0; pages < 100_000; pages++) {
      ListPage page = await(handle.list(prefix, startAfter, maxKeys));
      for (ObjectInfo info : page.objects()) {
        assertThat(info.key()).startsWith(prefix);
        assertThat(info.key().compareTo(startAfter)).isPositive();
      }
      all.addAll(page.objects());
      if (page.nextStartAfter().isEmpty()) {
        return all;
      }
      startAfter = page.nextStartAfter().get();
    }
    return fail("listing of %s did not end", prefix);
  }

  /** The keys of {@code infos}, in order. */
  protected static List<String> keys(List<ObjectInfo> infos) {
    return infos.stream().map(ObjectInfo::key).collect(Collectors.toList());
  }

  /** {@code keys} sorted by unsigned UTF-8 bytes, computed independently of String order. */
  protected static List<String> byteOrder(List<String> keys) {
    Comparator<String> utf8 =
        (a, b) -> Arrays.compareUnsigned(a.getBytes(UTF_8), b.getBytes(UTF_8));
    List<String> sorted = new ArrayList<>(keys);
    Collections.sort(sorted, utf8);
    return sorted;
  }

  /** The UTF-8 bytes of {@code s}. */
  protected static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  /** {@code n} bytes that differ from their neighbours, so an off-by-one shows. */
  protected static byte[] pattern(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + (i >>> 8));
    }
    return b;
  }

  /** See {@link #handleSharing(ObjectStore)}. */
  private static final class SharedHandle implements ObjectStore {
    private final ObjectStore shared;
    private final AtomicBoolean closed = new AtomicBoolean();

    SharedHandle(ObjectStore shared) {
      this.shared = shared;
    }

    private <T> CompletableFuture<T> open(Supplier<CompletableFuture<T>> call) {
      if (closed.get()) {
        return CompletableFuture.failedFuture(
            new StoreUnavailableException("this handle is closed"));
      }
      return call.get();
    }

    @Override
    public CompletableFuture<Void> create(String key, byte[] bytes) {
      return open(() -> shared.create(key, bytes));
    }

    @Override
    public CompletableFuture<Void> put(String key, byte[] bytes) {
      return open(() -> shared.put(key, bytes));
    }

    @Override
    public CompletableFuture<byte[]> get(String key) {
      return open(() -> shared.get(key));
    }

    @Override
    public CompletableFuture<byte[]> get(String key, long offset, int length) {
      return open(() -> shared.get(key, offset, length));
    }

    @Override
    public CompletableFuture<TailRead> getTail(String key, int length) {
      return open(() -> shared.getTail(key, length));
    }

    @Override
    public CompletableFuture<Optional<ObjectInfo>> head(String key) {
      return open(() -> shared.head(key));
    }

    @Override
    public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
      return open(() -> shared.list(prefix, startAfter, maxKeys));
    }

    @Override
    public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
      return open(() -> shared.delete(keys));
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }
}
