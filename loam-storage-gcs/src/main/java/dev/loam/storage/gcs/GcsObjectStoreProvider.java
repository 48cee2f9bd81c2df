package dev.loam.storage.gcs;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import java.net.URI;
import java.util.Set;

/**
 * Opens {@code gs://bucket/prefix?host=...&project=...} URIs as {@link GcsObjectStore}s; the
 * parameters are those of {@link GcsStoreSettings#fromUri}, and {@link StoreContext#properties()}
 * entries named {@code gcs.<param>} override them.
 */
public final class GcsObjectStoreProvider implements ObjectStoreProvider {
  @Override
  public Set<String> schemes() {
    return Set.of("gs");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    return GcsObjectStore.open(GcsStoreSettings.fromUri(uri, context.properties()), context);
  }
}
