package dev.loam.store.tck;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.StoreOutcomeUnknownException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import java.time.Duration;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * An {@link ObjectStore} that forwards to another and injects the failures real stores produce, so
 * a test can check how code above the SPI (a Loam node, a plugin's own layer) behaves when the
 * store is slow, refuses, throttles, or loses an answer. With no rule set it is a transparent
 * forwarder and passes the conformance kit.
 *
 * <p>Three kinds of {@link Fault}: {@link Fault#FAIL_BEFORE} (the request never reaches the store:
 * {@link StoreUnavailableException}, nothing changed), {@link Fault#FAIL_AFTER} (the request
 * reaches the store and completes there, then the answer is lost: a {@code create} or {@code put}
 * fails with {@link StoreOutcomeUnknownException} although the object was written; a read, list or
 * delete fails with {@link StoreUnavailableException}) and {@link Fault#THROTTLE} (the store's
 * answer to an overloaded client, S3's 503 SlowDown or a 429: {@link StoreUnavailableException}
 * saying so, nothing changed). A rule fires on the next {@code n} matching calls, or on each
 * matching call with a probability from a seeded random source, so a failing run can be repeated.
 * {@link #delay(Duration, Operation...)} holds matching calls back before they are sent.
 *
 * <p>Thread-safe: rules may be added and cleared while calls are in flight. {@link #close()} closes
 * the wrapped store.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

  /** The operations of the SPI, to aim a rule or a delay at. */
  public enum Operation {
    /** {@link ObjectStore#create(String, byte[])}. */
    CREATE,
    /** {@link ObjectStore#put(String, byte[])}. */
    PUT,
    /** {@link ObjectStore#get(String)}. */
    GET,
    /** {@link ObjectStore#get(String, long, int)}. */
    GET_RANGE,
    /** {@link ObjectStore#getTail(String, int)}. */
    GET_TAIL,
    /** {@link ObjectStore#head(String)}. */
    HEAD,
    /** {@link ObjectStore#list(String, String, int)}; a rule's key prefix matches its prefix. */
    LIST,
    /** {@link ObjectStore#delete(List)}; a rule's key prefix matches if any key matches. */
    DELETE;

    /** Every operation. */
    public static Operation[] all() {
      return values();
    }
  }

  /** What an injected failure looks like to the caller. */
  public enum Fault {
    /** Failed before the request reached the store: unavailable, nothing changed. */
    FAIL_BEFORE,
    /**
     * The store applied the request, then the answer was lost: outcome unknown for {@code create}
     * and {@code put}, unavailable for the others.
     */
    FAIL_AFTER,
    /** Throttled by the store: unavailable, nothing changed, retry later. */
    THROTTLE
  }

  private final ObjectStore delegate;
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final Map<Operation, Duration> delays = new ConcurrentHashMap<>();
  private final Map<Operation, AtomicLong> reached = new EnumMap<>(Operation.class);
  private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);

  /** Wraps {@code delegate}, which this store closes on {@link #close()}. */
  public FaultInjectingObjectStore(ObjectStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    for (Operation op : Operation.values()) {
      reached.put(op, new AtomicLong());
    }
    for (Fault f : Fault.values()) {
      injected.put(f, new AtomicLong());
    }
  }

  /**
   * Fails the next {@code times} calls of {@code ops} (every operation if none is given) with
   * {@code fault}.
   */
  public FaultInjectingObjectStore failNext(Fault fault, int times, Operation... ops) {
    return failNext(fault, times, "", ops);
  }

  /**
   * Fails the next {@code times} calls of {@code ops} (every operation if none is given) whose key
   * starts with {@code keyPrefix} with {@code fault}.
   */
  public FaultInjectingObjectStore failNext(
      Fault fault, int times, String keyPrefix, Operation... ops) {
    if (times <= 0) {
      throw new IllegalArgumentException("times must be positive times=" + times);
    }
    rules.add(new Rule(fault, ops(ops), keyPrefix, new AtomicLong(times), 1.0, null));
    return this;
  }

  /**
   * Fails each call of {@code ops} (every operation if none is given) with {@code fault} with
   * probability {@code rate}, drawn from a random source seeded with {@code seed}, until {@link
   * #clearFaults()}.
   */
  public FaultInjectingObjectStore failRandomly(
      Fault fault, double rate, long seed, Operation... ops) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException("rate must be within 0..1 rate=" + rate);
    }
    rules.add(new Rule(fault, ops(ops), "", null, rate, new Random(seed)));
    return this;
  }

  /**
   * Holds each call of {@code ops} (every operation if none is given) back by {@code delay} before
   * sending it; {@link Duration#ZERO} removes the delay.
   */
  public FaultInjectingObjectStore delay(Duration delay, Operation... ops) {
    if (delay.isNegative()) {
      throw new IllegalArgumentException("delay must not be negative delay=" + delay);
    }
    for (Operation op : ops(ops)) {
      if (delay.isZero()) {
        delays.remove(op);
      } else {
        delays.put(op, delay);
      }
    }
    return this;
  }

  /** Removes every fault rule and every delay. */
  public FaultInjectingObjectStore clearFaults() {
    rules.clear();
    delays.clear();
    return this;
  }

  /** How many calls of {@code op} reached the wrapped store (including those failed after). */
  public long requestsReached(Operation op) {
    return reached.get(op).get();
  }

  /** How many failures of kind {@code fault} were injected so far. */
  public long injected(Fault fault) {
    return injected.get(fault).get();
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    return call(Operation.CREATE, key, () -> delegate.create(key, bytes));
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    return call(Operation.PUT, key, () -> delegate.put(key, bytes));
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    return call(Operation.GET, key, () -> delegate.get(key));
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    return call(Operation.GET_RANGE, key, () -> delegate.get(key, offset, length));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    return call(Operation.GET_TAIL, key, () -> delegate.getTail(key, length));
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    return call(Operation.HEAD, key, () -> delegate.head(key));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    return call(Operation.LIST, prefix, () -> delegate.list(prefix, startAfter, maxKeys));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    String first = keys.isEmpty() ? "" : keys.get(0);
    return call(Operation.DELETE, keys, first, () -> delegate.delete(keys));
  }

  @Override
  public void close() {
    delegate.close();
  }

  private <T> CompletableFuture<T> call(
      Operation op, String key, Supplier<CompletableFuture<T>> send) {
    return call(op, List.of(key), key, send);
  }

  private <T> CompletableFuture<T> call(
      Operation op, List<String> keys, String shown, Supplier<CompletableFuture<T>> send) {
    Fault fault = fire(op, keys);
    Duration delay = delays.get(op);
    if (delay == null) {
      return apply(op, shown, fault, send);
    }
    return CompletableFuture.runAsync(
            () -> {}, CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS))
        .thenCompose(ignored -> apply(op, shown, fault, send));
  }

  private <T> CompletableFuture<T> apply(
      Operation op, String key, Fault fault, Supplier<CompletableFuture<T>> send) {
    if (fault == Fault.FAIL_BEFORE) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException(
              "injected fault: " + name(op) + " failed before it reached the store key=" + key));
    }
    if (fault == Fault.THROTTLE) {
      return CompletableFuture.failedFuture(
          new StoreUnavailableException(
              "injected fault: " + name(op) + " throttled by the store, slow down key=" + key));
    }
    reached.get(op).incrementAndGet();
    CompletableFuture<T> sent = send.get();
    if (fault != Fault.FAIL_AFTER) {
      return sent;
    }
    return sent.handle(
            (value, error) -> {
              String message =
                  "injected fault: the answer to "
                      + name(op)
                      + " was lost after it reached the store key="
                      + key;
              if (op == Operation.CREATE || op == Operation.PUT) {
                throw new StoreOutcomeUnknownException(message);
              }
              throw new StoreUnavailableException(message);
            })
        .thenApply(ignored -> null);
  }

  private Fault fire(Operation op, List<String> keys) {
    for (Rule rule : rules) {
      if (rule.matches(op, keys) && rule.fires()) {
        injected.get(rule.fault).incrementAndGet();
        return rule.fault;
      }
    }
    return null;
  }

  private static String name(Operation op) {
    return op.name().toLowerCase(java.util.Locale.ROOT);
  }

  private static Set<Operation> ops(Operation[] ops) {
    if (ops.length == 0) {
      return EnumSet.allOf(Operation.class);
    }
    return EnumSet.copyOf(List.of(ops));
  }

  /** One fault rule: what it injects, on which calls, how often. */
  private static final class Rule {
    private final Fault fault;
    private final Set<Operation> ops;
    private final String keyPrefix;
    private final AtomicLong remaining; // null: unlimited
    private final double rate;
    private final Random random; // null: always

    Rule(
        Fault fault,
        Set<Operation> ops,
        String keyPrefix,
        AtomicLong remaining,
        double rate,
        Random random) {
      this.fault = Objects.requireNonNull(fault, "fault");
      this.ops = ops;
      this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
      this.remaining = remaining;
      this.rate = rate;
      this.random = random;
    }

    boolean matches(Operation op, List<String> keys) {
      if (!ops.contains(op)) {
        return false;
      }
      if (keyPrefix.isEmpty()) {
        return true;
      }
      for (String k : keys) {
        if (k.startsWith(keyPrefix)) {
          return true;
        }
      }
      return false;
    }

    boolean fires() {
      if (random != null) {
        synchronized (random) {
          return random.nextDouble() < rate;
        }
      }
      return remaining.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
    }
  }
}
