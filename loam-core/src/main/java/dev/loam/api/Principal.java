package dev.loam.api;

import java.util.Set;

/**
 * Who a request was authenticated as: an API key's id, its scope and roles ({@link
 * Log#authenticate}). The HTTP API and the Kafka gateway ask it what a request may touch.
 *
 * @param namespace the one namespace the key may touch, or null for cluster-wide
 */
public record Principal(String keyId, String namespace, Set<Role> roles) {
  public Principal {
    roles = Set.copyOf(roles);
  }

  /** Whether the key may touch every namespace. */
  public boolean clusterWide() {
    return namespace == null;
  }

  /** Whether this key holds {@code role} and its scope covers {@code namespace}. */
  public boolean mayTouch(String namespace, Role role) {
    return roles.contains(role) && coversNamespace(namespace);
  }

  /** Whether the key's scope covers {@code namespace} (whatever its roles). */
  public boolean coversNamespace(String namespace) {
    return this.namespace == null || this.namespace.equals(namespace);
  }

  /** Whether this is a cluster-wide key with {@link Role#CLUSTER_ADMIN}. */
  public boolean clusterAdmin() {
    return clusterWide() && roles.contains(Role.CLUSTER_ADMIN);
  }
}
