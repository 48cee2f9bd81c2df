package dev.loam.cli;

import dev.loam.spi.store.ObjectStoreProvider;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * The {@code --store URI} parser: the URI's syntax and its scheme are checked while the command
 * line is parsed, against the schemes Loam opens itself ({@code mem}, {@code file}) and those of
 * every {@link ObjectStoreProvider} on the class path, so that a typo stops the command at once
 * rather than when the store is first opened (for a cluster node, only once a metastore leader
 * exists). The store itself is not contacted.
 */
public final class StoreUris {
  private StoreUris() {}

  /**
   * A store URI; with {@code shared} true {@code mem://} is refused, since an in-memory store is
   * private to one process and a cluster's nodes must share theirs.
   */
  public static ValueParser<String> parser(boolean shared) {
    return t -> {
      String lower = t.toLowerCase(Locale.ROOT);
      if (lower.startsWith("mem:")) {
        if (shared) {
          throw new IllegalArgumentException(
              "mem:// is private to one process; a cluster needs a shared store"
                  + " (file:///shared/dir, s3://, azblob://, gs://)");
        }
        return t;
      }
      URI u;
      try {
        u = new URI(t);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("not a URI: " + t + " (" + e.getReason() + ")", e);
      }
      TreeSet<String> known = knownSchemes();
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (scheme.isEmpty()) {
        throw new IllegalArgumentException(
            "not a store URI (no scheme; one of " + known + ", e.g. file:///dir): " + t);
      }
      if (!known.contains(scheme)) {
        throw new IllegalArgumentException(
            "no object store for scheme "
                + scheme
                + " (known: "
                + String.join(", ", known)
                + "; is its loam-storage module on the class path?): "
                + t);
      }
      if (scheme.equals("file") && (u.getPath() == null || u.getPath().isEmpty())) {
        throw new IllegalArgumentException("a file store URI needs a path, e.g. file:///dir: " + t);
      }
      return t;
    };
  }

  /** The schemes a store URI can have with the class path of this process. */
  public static TreeSet<String> knownSchemes() {
    TreeSet<String> known = new TreeSet<>();
    known.add("file");
    known.add("mem");
    for (ObjectStoreProvider p : ServiceLoader.load(ObjectStoreProvider.class)) {
      p.schemes().forEach(s -> known.add(s.toLowerCase(Locale.ROOT)));
    }
    return known;
  }
}
