package dev.loam.api;

import java.util.Set;

/**
 * An API key as listed: its public id, scope and roles, and when it was created and revoked. Never
 * the secret, which only {@link CreatedApiKey} carries, once.
 *
 * @param namespace the one namespace the key may touch, or null for cluster-wide
 * @param createdAtMillis the metastore clock when the key was created
 * @param revokedAtMillis the metastore clock when it was revoked, or -1 while it is active
 */
public record ApiKey(
    String id, String namespace, Set<Role> roles, long createdAtMillis, long revokedAtMillis) {
  public ApiKey {
    roles = Set.copyOf(roles);
  }

  /** Whether the key was revoked. */
  public boolean revoked() {
    return revokedAtMillis >= 0;
  }
}
