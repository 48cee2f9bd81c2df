package dev.loam.store;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectStore;
import dev.loam.spi.store.ObjectStoreProvider;
import dev.loam.spi.store.StoreContext;
import dev.loam.store.fs.FileSystemObjectStore;
import dev.loam.store.memory.InMemoryObjectStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Opens an object store by URI: {@code mem://} (a fresh in-memory store), {@code file:///path} (the
 * filesystem store), or any scheme of an {@link ObjectStoreProvider} on the class path.
 */
public final class ObjectStores {
  private ObjectStores() {}

  /** Opens the store named by {@code uri}; INVALID for a malformed URI or an unknown scheme. */
  public static ObjectStore open(String uri, StoreContext context) {
    if (uri.toLowerCase(Locale.ROOT).startsWith("mem:")) {
      return new InMemoryObjectStore(context.clock());
    }
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      throw new LoamException(Kind.INVALID, "malformed store URI uri=" + uri, e);
    }
    String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
    switch (scheme) {
      case "file":
        if (u.getPath() == null || u.getPath().isEmpty()) {
          throw new LoamException(Kind.INVALID, "file store URI needs a path uri=" + uri);
        }
        return new FileSystemObjectStore(Path.of(u), context.ioExecutor(), context.clock());
      default:
        break;
    }
    TreeSet<String> known = new TreeSet<>();
    known.add("file");
    known.add("mem");
    for (ObjectStoreProvider p : ServiceLoader.load(ObjectStoreProvider.class)) {
      if (p.schemes().contains(scheme)) {
        return p.open(u, context);
      }
      known.addAll(p.schemes());
    }
    throw new LoamException(
        Kind.INVALID,
        "no object store for scheme="
            + scheme
            + " (is its loam-storage module on the class path?) known="
            + known);
  }
}
