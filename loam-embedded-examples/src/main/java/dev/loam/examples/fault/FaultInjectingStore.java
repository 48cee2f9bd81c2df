package dev.loam.examples.fault;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ForwardingObjectStore;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;

/**
 * A chaos-testing wrapper around a node's object store (docs/design/simulation.md, "Process-level
 * chaos test"): it fails a configurable fraction of writes and reads with the store's own typed
 * errors, so a real multi-process cluster can be tested against a misbehaving store without a cloud
 * account. Its rates change at run time ({@link #setRates}, or a {@link FaultFile} that a test
 * rewrites); with {@link FaultRates#OFF} every call goes straight to the delegate.
 *
 * <p>Faults, drawn independently per call:
 *
 * <ul>
 *   <li>{@link FaultKind#WRITE_UNAVAILABLE}: a {@code create} or {@code put} fails with {@link
 *       StoreUnavailableException} and nothing is written (a 503 or throttling answer);
 *   <li>{@link FaultKind#WRITE_OUTCOME_UNKNOWN}: the write is done, and if it succeeded the caller
 *       hears {@link StoreOutcomeUnknownException} instead (a timeout after the request landed); a
 *       write that failed reports its own failure;
 *   <li>{@link FaultKind#READ_UNAVAILABLE}: a {@code get}, ranged {@code get} or {@code getTail}
 *       fails with {@link StoreUnavailableException};
 *   <li>{@link FaultKind#SLOW}: every {@code create}, {@code put}, {@code get} and {@code getTail}
 *       waits {@link FaultRates#slowMillis} before it goes on (then draws its other faults).
 * </ul>
 *
 * <p>{@code head}, {@code list} and {@code delete} are never faulted. Each injected fault is
 * counted and reported to the listener. Thread-safe.
 */
public final class FaultInjectingStore extends ForwardingObjectStore {
  /** Told about every fault injected (for logs and test counters); must not block. */
  @FunctionalInterface
  public interface Listener {
    void injected(FaultKind kind, String operation, String key);
  }

  private final RandomGenerator random;
  private final Listener listener;
  private final Map<FaultKind, AtomicLong> counts = new EnumMap<>(FaultKind.class);
  private volatile FaultRates rates = FaultRates.OFF;

  /**
   * @param random draws the faults; used under this object's lock, so any generator will do
   */
  public FaultInjectingStore(ObjectStore delegate, RandomGenerator random, Listener listener) {
    super(Objects.requireNonNull(delegate, "delegate"));
    this.random = Objects.requireNonNull(random, "random");
    this.listener = Objects.requireNonNull(listener, "listener");
    for (FaultKind k : FaultKind.values()) {
      counts.put(k, new AtomicLong());
    }
  }

  /** Replaces the rates; calls already in progress keep the fault they drew. */
  public void setRates(FaultRates r) {
    this.rates = Objects.requireNonNull(r, "rates");
  }

  public FaultRates rates() {
    return rates;
  }

  /** How many faults of {@code kind} were injected since this store was built. */
  public long injected(FaultKind kind) {
    return counts.get(kind).get();
  }

  private synchronized double draw() {
    return random.nextDouble();
  }

  /** The fault for one write, or null. */
  private FaultKind writeFault() {
    FaultRates r = rates;
    if (r.writeUnavailable() == 0 && r.writeOutcomeUnknown() == 0) {
      return null;
    }
    double u = draw();
    if (u < r.writeUnavailable()) {
      return FaultKind.WRITE_UNAVAILABLE;
    }
    if (u < r.writeUnavailable() + r.writeOutcomeUnknown()) {
      return FaultKind.WRITE_OUTCOME_UNKNOWN;
    }
    return null;
  }

  private boolean readFault() {
    double p = rates.readUnavailable();
    return p > 0 && draw() < p;
  }

  private void count(FaultKind kind, String op, String key) {
    counts.get(kind).incrementAndGet();
    listener.injected(kind, op, key);
  }

  /** {@code call} after the slow-store delay, if one is set. */
  private <T> CompletableFuture<T> slow(
      String op, String key, java.util.function.Supplier<CompletableFuture<T>> call) {
    long ms = rates.slowMillis();
    if (ms == 0) {
      return call.get();
    }
    count(FaultKind.SLOW, op, key);
    return CompletableFuture.supplyAsync(
            () -> null, CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS))
        .thenCompose(x -> call.get());
  }

  private <T> CompletableFuture<T> write(
      String op, String key, java.util.function.Supplier<CompletableFuture<T>> call) {
    return slow(op, key, () -> writeNow(op, key, call));
  }

  private <T> CompletableFuture<T> writeNow(
      String op, String key, java.util.function.Supplier<CompletableFuture<T>> call) {
    FaultKind f = writeFault();
    if (f == FaultKind.WRITE_UNAVAILABLE) {
      count(f, op, key);
      return CompletableFuture.failedFuture(
          new StoreUnavailableException(
              "injected fault: " + op + " refused, nothing written key=" + key));
    }
    CompletableFuture<T> real = call.get();
    if (f == null) {
      return real;
    }
    return real.thenApply(
        v -> {
          count(FaultKind.WRITE_OUTCOME_UNKNOWN, op, key);
          throw new CompletionException(
              new StoreOutcomeUnknownException(
                  "injected fault: " + op + " written but its answer lost key=" + key));
        });
  }

  private <T> CompletableFuture<T> read(
      String op, String key, java.util.function.Supplier<CompletableFuture<T>> call) {
    return slow(op, key, () -> readNow(op, key, call));
  }

  private <T> CompletableFuture<T> readNow(
      String op, String key, java.util.function.Supplier<CompletableFuture<T>> call) {
    if (readFault()) {
      count(FaultKind.READ_UNAVAILABLE, op, key);
      return CompletableFuture.failedFuture(
          new StoreUnavailableException("injected fault: " + op + " refused key=" + key));
    }
    return call.get();
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return write("create", key, () -> delegate.create(key, bytes));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return write("put", key, () -> delegate.put(key, bytes));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return read("get", key, () -> delegate.get(key));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return read("get", key, () -> delegate.get(key, offset, length));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return read("getTail", key, () -> delegate.getTail(key, length));
  }
}
