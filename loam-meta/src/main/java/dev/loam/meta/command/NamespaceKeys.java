package dev.loam.meta.command;

import java.util.List;
import java.util.Objects;

/**
 * A namespace's key-encryption keys as the metastore records them (docs/security.md, "Data at
 * rest"): the ULIDs of its keys, oldest first, and whether its master key was destroyed. The newest
 * key seals new chunks; older ones still open what they sealed. The keys themselves live wrapped by
 * the namespace's master key in the object store ({@code
 * ns/<cluster_id>/<namespace>/keys/<ulid>.key}, docs/formats/namespace-key-v1.md); the metastore
 * holds only their names.
 *
 * @param namespace the namespace
 * @param keyUlids the keys' ULIDs (26 Crockford base32 characters), strictly increasing
 * @param destroyed whether the master key was destroyed: nothing of the namespace is sealed or
 *     opened again
 */
public record NamespaceKeys(String namespace, List<String> keyUlids, boolean destroyed) {
  /** The most keys one namespace holds (STYLE.md §9): about one rotation a day for three years. */
  public static final int MAX_KEYS = 1000;

  public NamespaceKeys {
    Objects.requireNonNull(namespace, "namespace");
    keyUlids = List.copyOf(keyUlids);
  }

  /** The ULID of the key that seals new chunks; null when the namespace has none. */
  public String currentUlid() {
    return keyUlids.isEmpty() ? null : keyUlids.get(keyUlids.size() - 1);
  }

  /**
   * The id sealed chunks carry for the current key, {@code <namespace>/<ulid>}; null when there is
   * none.
   */
  public String currentKeyId() {
    String u = currentUlid();
    return u == null ? null : namespace + "/" + u;
  }

  /** Whether new chunks of the namespace are sealed: it has a key that was not destroyed. */
  public boolean sealsNewData() {
    return !destroyed && !keyUlids.isEmpty();
  }
}
