package dev.loam.storage.s3;

import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import java.net.URI;
import java.util.Set;

/**
 * Opens {@code s3://bucket/prefix?endpoint=…&region=…&path-style=true} stores (every parameter is
 * in {@link S3StoreSettings#URI_PARAMETERS}). Credentials: {@code StoreContext} properties {@value
 * S3StoreSettings#ACCESS_KEY_PROPERTY} and {@value S3StoreSettings#SECRET_KEY_PROPERTY}, else the
 * URI's {@code access-key}/{@code secret-key}, else the SDK's default credentials chain. Futures
 * complete on the context's I/O executor.
 */
public final class S3ObjectStoreProvider implements ObjectStoreProvider {
  @Override
  public Set<String> schemes() {
    return Set.of("s3");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    return new S3ObjectStore(
        S3StoreSettings.fromUri(uri, context.properties()), context.ioExecutor());
  }
}
