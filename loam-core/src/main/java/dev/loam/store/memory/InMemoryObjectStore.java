package dev.loam.store.memory;

import static dev.loam.store.ObjectKeys.describe;

import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.InvalidRangeException;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectNotFoundException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreException;
import dev.loam.spi.store.StoreUnavailableException;
import dev.loam.spi.store.TailRead;
import dev.loam.store.ObjectKeys;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * An {@link ObjectStore} held in memory, for tests and deterministic simulation. It has the same
 * semantics as the S3 and filesystem stores and passes the same conformance kit: the same key
 * rules, an atomic create-if-absent, ranged reads cut at the end, listings in UTF-8 byte order.
 *
 * <p>Thread-safe. Futures complete before the method returns (on the caller's thread), which keeps
 * simulations deterministic. Byte arrays are copied in and out, so neither side can see the other
 * mutate them. {@code lastModifiedMillis} comes from the injected clock at the time of the write.
 * Nothing is bounded but the per-request limits of the SPI: a test that writes 10 GiB needs 10 GiB
 * of heap.
 */
public final class InMemoryObjectStore implements ObjectStore {

  /** One stored object; the array is never handed out, only copies of it. */
  private record Stored(byte[] bytes, long lastModifiedMillis) {}

  // A sorted map so list is a range scan; keys are ASCII, so String order is UTF-8 byte order.
  private final ConcurrentSkipListMap<String, Stored> objects = new ConcurrentSkipListMap<>();
  private final InstantSource clock;
  private volatile boolean closed;

  /** A store that stamps each write with {@code clock.millis()}. */
  public InMemoryObjectStore(InstantSource clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public CompletableFuture<Void> create(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(bytes, "bytes");
    Optional<ObjectStoreException> rejected = reject("create", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    // putIfAbsent is the native precondition here: one atomic step, no check-then-write.
    Stored previous = objects.putIfAbsent(key, stored(bytes));
    if (previous != null) {
      return CompletableFuture.failedFuture(
          new ObjectExistsException("object already exists" + describe(key)));
    }
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Void> put(String key, byte[] bytes) {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(bytes, "bytes");
    Optional<ObjectStoreException> rejected = reject("put", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    objects.put(key, stored(bytes));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<byte[]> get(String key) {
    Objects.requireNonNull(key, "key");
    Optional<ObjectStoreException> rejected = reject("get", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    Stored s = objects.get(key);
    if (s == null) {
      return CompletableFuture.failedFuture(notFound(key));
    }
    return CompletableFuture.completedFuture(s.bytes().clone());
  }

  @Override
  public CompletableFuture<byte[]> get(String key, long offset, int length) {
    Objects.requireNonNull(key, "key");
    Optional<ObjectStoreException> rejected = reject("get", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    if (offset < 0 || length <= 0) {
      return CompletableFuture.failedFuture(
          new InvalidRangeException(
              "offset " + offset + " must be >= 0 and length " + length + " > 0" + describe(key)));
    }
    Stored s = objects.get(key);
    if (s == null) {
      return CompletableFuture.failedFuture(notFound(key));
    }
    int size = s.bytes().length;
    if (offset >= size) {
      return CompletableFuture.failedFuture(
          new InvalidRangeException(
              "offset " + offset + " at or beyond object size " + size + describe(key)));
    }
    int from = (int) offset;
    int to = (int) Math.min((long) size, offset + length);
    return CompletableFuture.completedFuture(Arrays.copyOfRange(s.bytes(), from, to));
  }

  @Override
  public CompletableFuture<TailRead> getTail(String key, int length) {
    Objects.requireNonNull(key, "key");
    Optional<ObjectStoreException> rejected = reject("getTail", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    if (length <= 0) {
      return CompletableFuture.failedFuture(
          new InvalidRangeException("tail length " + length + " must be > 0" + describe(key)));
    }
    Stored s = objects.get(key);
    if (s == null) {
      return CompletableFuture.failedFuture(notFound(key));
    }
    int size = s.bytes().length;
    byte[] tail = Arrays.copyOfRange(s.bytes(), Math.max(0, size - length), size);
    return CompletableFuture.completedFuture(new TailRead(tail, size));
  }

  @Override
  public CompletableFuture<Optional<ObjectInfo>> head(String key) {
    Objects.requireNonNull(key, "key");
    Optional<ObjectStoreException> rejected = reject("head", key);
    if (rejected.isPresent()) {
      return CompletableFuture.failedFuture(rejected.get());
    }
    Stored s = objects.get(key);
    return CompletableFuture.completedFuture(Optional.ofNullable(s).map(v -> info(key, v)));
  }

  @Override
  public CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys) {
    Objects.requireNonNull(prefix, "prefix");
    Objects.requireNonNull(startAfter, "startAfter");
    if (closed) {
      return CompletableFuture.failedFuture(closedFailure("list", prefix));
    }
    Optional<InvalidRangeException> badMax = ObjectKeys.checkMaxKeys(maxKeys, prefix);
    if (badMax.isPresent()) {
      return CompletableFuture.failedFuture(badMax.get());
    }
    // Keys with a common prefix are contiguous in sorted order: start at the later of the prefix
    // and startAfter, stop at the first key without the prefix.
    NavigableMap<String, Stored> tail =
        startAfter.compareTo(prefix) >= 0
            ? objects.tailMap(startAfter, false)
            : objects.tailMap(prefix, true);
    List<ObjectInfo> page = new ArrayList<>(Math.min(maxKeys, 64));
    for (Map.Entry<String, Stored> e : tail.entrySet()) {
      if (!e.getKey().startsWith(prefix)) {
        break;
      }
      if (page.size() == maxKeys) {
        return CompletableFuture.completedFuture(
            new ListPage(page, Optional.of(page.get(page.size() - 1).key())));
      }
      page.add(info(e.getKey(), e.getValue()));
    }
    return CompletableFuture.completedFuture(new ListPage(page, Optional.empty()));
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    keys.forEach(k -> Objects.requireNonNull(k, "keys contains null"));
    if (closed) {
      return CompletableFuture.failedFuture(closedFailure("delete", keys.size() + " keys"));
    }
    Optional<InvalidRangeException> tooMany = ObjectKeys.checkDeleteBatch(keys.size());
    if (tooMany.isPresent()) {
      return CompletableFuture.failedFuture(tooMany.get());
    }
    List<DeleteFailure> failures = new ArrayList<>();
    for (String key : keys) {
      Optional<? extends ObjectStoreException> invalid = ObjectKeys.check(key);
      if (invalid.isPresent()) {
        failures.add(new DeleteFailure(key, invalid.get()));
      } else {
        objects.remove(key);
      }
    }
    return CompletableFuture.completedFuture(failures);
  }

  /** Marks the store closed; later calls fail with {@link StoreUnavailableException}. */
  @Override
  public void close() {
    closed = true;
  }

  private Stored stored(byte[] bytes) {
    // Copy: the caller owns its array again once the future completes.
    return new Stored(bytes.clone(), clock.millis());
  }

  private static ObjectInfo info(String key, Stored s) {
    return new ObjectInfo(key, s.bytes().length, s.lastModifiedMillis());
  }

  private Optional<ObjectStoreException> reject(String op, String key) {
    if (closed) {
      return Optional.of(closedFailure(op, key));
    }
    return ObjectKeys.check(key).map(e -> e);
  }

  private static StoreUnavailableException closedFailure(String op, String key) {
    return new StoreUnavailableException(op + " on a closed store" + describe(key));
  }

  private static ObjectNotFoundException notFound(String key) {
    return new ObjectNotFoundException("object not found" + describe(key));
  }
}
