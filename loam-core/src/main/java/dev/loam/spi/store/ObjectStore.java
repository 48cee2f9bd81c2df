package dev.loam.spi.store;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The object-store SPI: the only way Loam touches durable bytes (WAL objects, segments).
 *
 * <p>Every method is asynchronous and reports I/O failures only through its future, never by
 * throwing (a {@code null} argument is a programming error and may throw {@link
 * NullPointerException} at once). Futures fail with an {@link ObjectStoreException} subclass:
 *
 * <ul>
 *   <li>{@link ObjectExistsException}: a create-if-absent found the key taken; nothing was written.
 *   <li>{@link ObjectNotFoundException}: the key does not exist.
 *   <li>{@link InvalidRangeException}: a ranged read starts at or beyond the object's end.
 *   <li>{@link StoreUnavailableException}: transient (throttling, 5xx, connection reset); nothing
 *       changed, the same call may succeed later.
 *   <li>{@link StoreOutcomeUnknownException}: a write that may or may not have happened (timeout
 *       after the request was sent). Retrying a {@link #create} with the same key and bytes is
 *       safe: the retry either writes or fails with {@link ObjectExistsException}, and the caller
 *       can then {@link #get} to compare.
 * </ul>
 *
 * <p>Implementations are thread-safe. Keys are non-empty strings of {@code [A-Za-z0-9._/-]}
 * segments separated by {@code /}, no segment empty, {@code .} or {@code ..}, at most 1024 bytes;
 * an invalid key fails the future with {@link InvalidKeyException}. Byte arrays passed in are owned
 * by the store until the future completes (the caller must not mutate them); arrays handed out are
 * owned by the caller.
 */
public interface ObjectStore extends AutoCloseable {

  /**
   * Writes {@code bytes} at {@code key} only if no object exists there ({@code If-None-Match: *}
   * semantics, native precondition, never check-then-write). On success the object is durable and
   * visible to every later {@link #get}/{@link #head}/{@link #list} from any process sharing the
   * store. Idempotent in effect: a retry either succeeds or fails with {@link
   * ObjectExistsException}.
   *
   * <p>Fails with: exists, unavailable, outcome unknown, invalid key.
   */
  CompletableFuture<Void> create(String key, byte[] bytes);

  /**
   * Writes {@code bytes} at {@code key}, replacing any object there. Durable on success. Fails
   * with: unavailable, outcome unknown, invalid key.
   */
  CompletableFuture<Void> put(String key, byte[] bytes);

  /**
   * Reads the whole object. Fails with: not found, unavailable, invalid key, invalid range (an
   * object too large for one array).
   */
  CompletableFuture<byte[]> get(String key);

  /**
   * Reads {@code length} bytes from {@code offset}; a range running past the end is cut at the end
   * (like HTTP {@code Range}). {@code offset} at or beyond the end fails with {@link
   * InvalidRangeException}; {@code offset < 0} or {@code length <= 0} fails with {@link
   * InvalidRangeException} too. Fails also with: not found, unavailable, invalid key.
   */
  CompletableFuture<byte[]> get(String key, long offset, int length);

  /**
   * Reads the last {@code length} bytes (a suffix range, {@code bytes=-length}); the whole object
   * if it is shorter. Returns the bytes and the object's total size, so a reader can locate a
   * footer in one request. Fails with: not found, unavailable, invalid key, invalid range ({@code
   * length <= 0}).
   */
  CompletableFuture<TailRead> getTail(String key, int length);

  /** The object's metadata, or empty if it does not exist. Fails with: unavailable, invalid key. */
  CompletableFuture<Optional<ObjectInfo>> head(String key);

  /**
   * One page of keys starting with {@code prefix}, in lexicographic (UTF-8 byte) order, strictly
   * after {@code startAfter} when given (empty string: from the start). At most {@code maxKeys}
   * (1..1000) entries; {@link ListPage#nextStartAfter()} is present when more may follow.
   * Consistent with completed writes and deletes. {@code prefix} and {@code startAfter} need not be
   * keys; a prefix no valid key can start with yields an empty page. Fails with: unavailable,
   * invalid range ({@code maxKeys} outside 1..1000).
   */
  CompletableFuture<ListPage> list(String prefix, String startAfter, int maxKeys);

  /**
   * Deletes up to 1000 keys. Deleting a missing key is a success. The result has one entry per key
   * that failed (empty when all succeeded); a per-key failure is a value, not a failed future. The
   * future itself fails only when the whole request failed (unavailable) or has more than 1000 keys
   * (invalid range). An invalid key is a per-key failure ({@link InvalidKeyException}).
   */
  CompletableFuture<List<DeleteFailure>> delete(List<String> keys);

  /**
   * Releases resources. Idempotent. Outstanding futures may fail with {@link
   * StoreUnavailableException}; calls made after close fail with it.
   */
  @Override
  void close();
}
