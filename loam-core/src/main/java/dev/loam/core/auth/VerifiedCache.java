package dev.loam.core.auth;

import dev.loam.api.Principal;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Successful verifications, so that a request with a key verified a moment ago does not pay PBKDF2
 * again: keyed by the key id and a SHA-256 of the presented secret (the secret itself is not kept),
 * bounded to {@code maxEntries} (least recently used out first) and each entry valid for {@code
 * ttlMillis}. A failed verification is never cached. Thread-safe (one lock; every operation is O(1)
 * but {@link #dropKey}, which runs once per revocation).
 */
final class VerifiedCache {
  private final int maxEntries;
  private final long ttlMillis;
  private final LinkedHashMap<String, Entry> entries;

  private record Entry(Principal principal, long expiresAtMillis) {}

  VerifiedCache(int maxEntries, long ttlMillis) {
    this.maxEntries = maxEntries;
    this.ttlMillis = ttlMillis;
    this.entries =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > VerifiedCache.this.maxEntries;
          }
        };
  }

  private static String cacheKey(String keyId, String secretHash) {
    return keyId + "/" + secretHash;
  }

  /** The principal verified for this id and secret hash, if still fresh at {@code nowMillis}. */
  synchronized Principal get(String keyId, String secretHash, long nowMillis) {
    String k = cacheKey(keyId, secretHash);
    Entry e = entries.get(k);
    if (e == null) {
      return null;
    }
    if (nowMillis >= e.expiresAtMillis) {
      entries.remove(k);
      return null;
    }
    return e.principal;
  }

  synchronized void put(String keyId, String secretHash, Principal p, long nowMillis) {
    entries.put(cacheKey(keyId, secretHash), new Entry(p, nowMillis + ttlMillis));
  }

  /** Drops every entry of {@code keyId}: its revocation was applied. */
  synchronized void dropKey(String keyId) {
    String prefix = keyId + "/";
    for (Iterator<String> it = entries.keySet().iterator(); it.hasNext(); ) {
      if (it.next().startsWith(prefix)) {
        it.remove();
      }
    }
  }

  synchronized int size() {
    return entries.size();
  }
}
