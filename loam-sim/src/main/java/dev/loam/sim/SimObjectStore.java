package dev.loam.sim;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.memory.InMemoryObjectStore;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An {@link ObjectStore} with S3's semantics (it wraps {@link InMemoryObjectStore}, which passes
 * the conformance kit) whose every call completes through the {@link SimScheduler} after a seeded
 * latency, with faults drawn from its own random stream:
 *
 * <ul>
 *   <li>unavailable (503/throttling): nothing happens, the call fails with {@link
 *       StoreUnavailableException};
 *   <li>slow: the call takes {@link Faults#slowMillis} more;
 *   <li>outcome unknown: a write (create, put, delete) that takes effect, or not (half each), and
 *       then fails with {@link StoreOutcomeUnknownException} (a timeout after the request left);
 *   <li>missing read: a {@code get} of an object that exists answers not found (a lying or lagging
 *       replica; S3 itself is strongly consistent, so this probes how the read path degrades).
 * </ul>
 *
 * A write takes effect at its completion time, in scheduler order, so concurrent writers are
 * ordered deterministically. Faults can be switched off ({@link #setFaultsEnabled}) for setup and
 * for the final read-back.
 */
public final class SimObjectStore implements ObjectStore {

  /**
   * Per-call probabilities for one run.
   *
   * @param slowMillis the extra latency of a slow call
   */
  public record Faults(
      double unavailable, double slow, double outcomeUnknown, double missingRead, long slowMillis) {
    public static Faults none() {
      return new Faults(0, 0, 0, 0, 0);
    }

    @Override
    public String toString() {
      return String.format(
          java.util.Locale.ROOT,
          "store{unavailable=%.3f slow=%.3f(%dms) outcomeUnknown=%.3f missingRead=%.3f}",
          unavailable,
          slow,
          slowMillis,
          outcomeUnknown,
          missingRead);
    }
  }

  /** Counts of injected faults, for the report and the trace. */
  public static final class Stats {
    public long calls;
    public long unavailable;
    public long slow;
    public long outcomeUnknown;
    public long missingRead;

    @Override
    public String toString() {
      return "calls="
          + calls
          + " unavailable="
          + unavailable
          + " slow="
          + slow
          + " outcomeUnknown="
          + outcomeUnknown
          + " missingRead="
          + missingRead;
    }
  }

  private enum Op {
    READ,
    WRITE,
    META
  }

  private final InMemoryObjectStore inner;
  private final SimScheduler scheduler;
  private final SplittableRandom random;
  private final Faults faults;
  private final Stats stats = new Stats();
  private final Trace trace;
  private boolean faultsEnabled = true;
  private boolean down;

  public SimObjectStore(SimScheduler scheduler, SplittableRandom random, Faults faults, Trace t) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    this.inner = new InMemoryObjectStore(scheduler.clock());
    this.random = Objects.requireNonNull(random, "random");
    this.faults = Objects.requireNonNull(faults, "faults");
    this.trace = Objects.requireNonNull(t, "trace");
  }

  public void setFaultsEnabled(boolean on) {
    this.faultsEnabled = on;
  }

  /**
   * A zone (or region) outage: while down, every call answers unavailable, whether or not faults
   * are enabled. For one of the three zonal stores under the express class.
   */
  public void setDown(boolean down) {
    this.down = down;
  }

  public Stats stats() {
    return stats;
  }

  public Faults faults() {
    return faults;
  }

  /** The store underneath, for the checker (answers at once, no faults). */
  public InMemoryObjectStore direct() {
    return inner;
  }

  /**
   * Runs {@code call} against the inner store after a seeded latency, with the faults of {@code
   * op}. The inner store completes before returning, so the answer is known at the simulated
   * completion time.
   */
  private <T> CompletableFuture<T> simulate(
      String name, String key, Op op, Supplier<CompletableFuture<T>> call) {
    stats.calls++;
    long latency = 1 + random.nextInt(30);
    int fault = 0; // 0 none, 1 unavailable, 2 unknown-applied, 3 unknown-not-applied, 4 missing
    if (faultsEnabled) {
      if (random.nextDouble() < faults.slow()) {
        latency += faults.slowMillis();
        stats.slow++;
      }
      double r = random.nextDouble();
      if (r < faults.unavailable()) {
        fault = 1;
      } else if (op == Op.WRITE && r < faults.unavailable() + faults.outcomeUnknown()) {
        fault = random.nextBoolean() ? 2 : 3;
      } else if (op == Op.READ && r < faults.unavailable() + faults.missingRead()) {
        fault = 4;
      }
    }
    if (down) {
      fault = 1;
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    int f = fault;
    scheduler.schedule(
        () -> {
          trace.add("store " + name + " " + key + " fault=" + f);
          switch (f) {
            case 1 -> {
              stats.unavailable++;
              result.completeExceptionally(
                  new StoreUnavailableException("simulated 503 op=" + name + " key=" + key));
            }
            case 2, 3 -> {
              stats.outcomeUnknown++;
              if (f == 2) {
                call.get(); // it landed; the answer did not
              }
              result.completeExceptionally(
                  new StoreOutcomeUnknownException(
                      "simulated timeout after send op=" + name + " key=" + key));
            }
            case 4 -> {
              stats.missingRead++;
              result.completeExceptionally(
                  new ObjectNotFoundException("simulated missing read op=" + name + " key=" + key));
            }
            default ->
                call.get()
                    .whenComplete(
                        (v, e) -> {
                          if (e != null) {
                            result.completeExceptionally(e);
                          } else {
                            result.complete(v);
                          }
                        });
          }
        },
        latency,
        TimeUnit.MILLISECONDS);
    return result;
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    byte[] copy = bytes.clone();
    return simulate("create", key, Op.WRITE, () -> inner.create(key, copy));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    byte[] copy = bytes.clone();
    return simulate("put", key, Op.WRITE, () -> inner.put(key, copy));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    Objects.requireNonNull(key, "key");
    return simulate("get", key, Op.READ, () -> inner.get(key));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    Objects.requireNonNull(key, "key");
    return simulate(
        "get[" + offset + "+" + length + "]", key, Op.READ, () -> inner.get(key, offset, length));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    Objects.requireNonNull(key, "key");
    return simulate("getTail", key, Op.READ, () -> inner.getTail(key, length));
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    Objects.requireNonNull(key, "key");
    return simulate("head", key, Op.META, () -> inner.head(key));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    return simulate("list", prefix, Op.META, () -> inner.list(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    List<String> copy = List.copyOf(keys);
    return simulate("delete", String.join(",", copy), Op.WRITE, () -> inner.delete(copy));
  }

  /** Shared by every simulated node: closing is the simulation's business, so this is a no-op. */
  @Override
  public void close() {}
}
