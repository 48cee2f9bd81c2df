package com.example.dirstore;

import dev.loam.error.LoamException;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.fs.FileSystemObjectStore;
import java.net.URI;
import java.nio.file.Path;
import java.util.Set;

/**
 * Opens {@code dirstore:///absolute/dir}: objects as files under a directory, through Loam's
 * filesystem store. The plugin's own part is the URI scheme and the property {@code
 * dirstore.root-suffix}, appended to the directory, which shows that a host's store properties
 * reach the provider.
 */
public final class DirStoreProvider implements ObjectStoreProvider {
  @Override
  public Set<String> schemes() {
    return Set.of("dirstore");
  }

  @Override
  public ObjectStore open(URI uri, StoreContext context) {
    if (uri.getPath() == null || !uri.getPath().startsWith("/")) {
      throw new LoamException(
          LoamException.Kind.INVALID, "dirstore URI needs an absolute path uri=" + uri);
    }
    Path root = Path.of(uri.getPath() + context.properties().getOrDefault("dirstore.root-suffix", ""));
    return new FileSystemObjectStore(root, context.ioExecutor(), context.clock());
  }
}
