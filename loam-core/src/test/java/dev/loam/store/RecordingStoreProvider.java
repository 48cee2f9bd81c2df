package dev.loam.store;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.memory.InMemoryObjectStore;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A provider registered through {@code META-INF/services} in loam-core's tests, as a plugin
 * registers its own: {@code recording://<name>} opens an in-memory store and remembers the context
 * it was opened with, by name, so a test can check what a node handed to its provider.
 */
public final class RecordingStoreProvider implements ObjectStoreProvider {
  private static final ConcurrentMap<String, StoreContext> OPENED = new ConcurrentHashMap<>();

  /** The context the store {@code recording://<name>} was last opened with, or null. */
  public static StoreContext openedWith(String name) {
    return OPENED.get(name);
  }

  @Override
  public Set<String> schemes() {
    return Set.of("recording");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    OPENED.put(uri.getHost(), context);
    return new InMemoryObjectStore(context.clock());
  }
}
