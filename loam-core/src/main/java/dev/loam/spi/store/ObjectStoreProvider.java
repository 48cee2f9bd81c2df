package dev.loam.spi.store;

import java.net.URI;
import java.util.Set;

/**
 * Opens an {@link ObjectStore} from a URI; found with {@link java.util.ServiceLoader} (register the
 * implementation in {@code META-INF/services/dev.loam.spi.store.ObjectStoreProvider}). Each storage
 * module ships one: {@code s3://bucket/prefix?endpoint=…&region=…&path-style=true}, {@code
 * azblob://account/container/prefix}, {@code gs://bucket/prefix?host=…}. loam-core provides {@code
 * mem://} and {@code file:///path}.
 */
public interface ObjectStoreProvider {
  /** The URI schemes this provider opens, lower case (e.g. {@code s3}). */
  Set<String> schemes();

  /**
   * Opens a store for {@code uri}. Throws {@link dev.loam.error.LoamException} INVALID naming the
   * bad part of the URI (this is configuration, not I/O); credentials come from the SDK's default
   * chain unless the URI or {@code context} gives them. Secrets never appear in messages.
   */
  ObjectStore open(URI uri, StoreContext context);
}
