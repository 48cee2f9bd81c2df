package dev.loam.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a new API key may do: its scope (one namespace, or cluster-wide when {@code namespace} is
 * null) and its roles (at least one; {@link Role#CLUSTER_ADMIN} only cluster-wide).
 *
 * @param namespace the one namespace the key may touch, or null for every namespace
 * @param roles immutable, never empty
 */
public record ApiKeySpec(String namespace, Set<Role> roles) {
  public ApiKeySpec {
    if (roles == null || roles.isEmpty()) {
      throw new LoamException(Kind.INVALID, "an API key needs at least one role");
    }
    if (namespace != null && roles.contains(Role.CLUSTER_ADMIN)) {
      throw new LoamException(
          Kind.INVALID, "cluster-admin needs a cluster-wide key namespace=" + namespace);
    }
    roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
  }

  /** A cluster-wide key with these roles. */
  public static ApiKeySpec clusterWide(Role first, Role... more) {
    return new ApiKeySpec(null, EnumSet.of(first, more));
  }

  /** A key that may touch only {@code namespace}, with these roles. */
  public static ApiKeySpec inNamespace(String namespace, Role first, Role... more) {
    return new ApiKeySpec(namespace, EnumSet.of(first, more));
  }

  /** Whether the key may touch every namespace. */
  public boolean clusterWide() {
    return namespace == null;
  }
}
