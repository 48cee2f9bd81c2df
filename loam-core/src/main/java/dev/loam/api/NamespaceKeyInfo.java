package dev.loam.api;

import java.util.List;

/**
 * A namespace's envelope-encryption keys as the metastore records them (docs/security.md, "Data at
 * rest"): the ids of its key-encryption keys, oldest first, the one that seals new data, and
 * whether the namespace was shredded. The key material never leaves the node's memory and the KMS.
 *
 * @param namespace the namespace
 * @param keyIds the key ids, {@code <namespace>/<ulid>}, oldest first; sealed chunks name theirs
 * @param currentKeyId the id that seals new appends (the newest)
 * @param destroyed whether the namespace's master key was destroyed: its appends are refused and
 *     its sealed data reads fail with {@link dev.loam.error.KeyDestroyedException}
 */
public record NamespaceKeyInfo(
    String namespace, List<String> keyIds, String currentKeyId, boolean destroyed) {
  public NamespaceKeyInfo {
    keyIds = List.copyOf(keyIds);
  }
}
