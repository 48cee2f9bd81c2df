package dev.loam.core.maintain;

import dev.loam.core.read.DiskCache;
import dev.loam.core.read.ReadPath;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ObjectStore;
import dev.loam.store.ForwardingObjectStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The store as GC sees it: deleting objects also drops their ranges from the disk cache and the WAL
 * read-ahead memory (best effort; a range of a deleted object is never asked for again anyway,
 * since no index entry names it, so this only frees the space sooner). Does not own the store it
 * wraps.
 */
public final class InvalidatingObjectStore extends ForwardingObjectStore {
  private final DiskCache cache;
  private final ReadPath readPath;

  public InvalidatingObjectStore(ObjectStore delegate, DiskCache cache) {
    this(delegate, cache, null);
  }

  /**
   * @param cache the disk cache, or null when the node has none
   * @param readPath whose WAL read-ahead memory drops deleted objects too, or null
   */
  public InvalidatingObjectStore(ObjectStore delegate, DiskCache cache, ReadPath readPath) {
    super(delegate);
    this.cache = cache;
    this.readPath = readPath;
  }

  @Override
  public CompletableFuture<List<DeleteFailure>> delete(List<String> keys) {
    if (cache != null) {
      cache.invalidate(keys);
    }
    if (readPath != null) {
      readPath.invalidate(keys);
    }
    return delegate.delete(keys);
  }

  @Override
  public void close() {
    // Not owned.
  }
}
