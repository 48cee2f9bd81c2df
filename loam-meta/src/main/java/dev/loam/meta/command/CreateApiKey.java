package dev.loam.meta.command;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * Creates an API key: its id, scope (a namespace, or null for cluster-wide), roles and the SCRAM
 * values the proposer derived from the secret it generated ({@link ScramSecrets}). The secret never
 * reaches the metastore, so the state machine stays deterministic and no replica or snapshot holds
 * it. The key's creation time is the metastore clock at apply.
 *
 * <p>Refused INVALID for an id that is not {@link ApiKeyInfo#isValidId valid}, a scope that is not
 * a valid namespace name, no roles, {@link ApiKeyRole#CLUSTER_ADMIN} on a namespace-scoped key,
 * secrets that are not {@link ScramSecrets#isWellFormed well formed}, or a key beyond {@link
 * #MAX_API_KEYS}; ALREADY_EXISTS for an id taken by another key. Idempotent: the same command again
 * answers the key as created.
 */
public record CreateApiKey(
    Origin origin, String id, String scope, Set<ApiKeyRole> roles, ScramSecrets secrets)
    implements Command {

  /** Keys the cluster holds at most, revoked ones included (STYLE.md §9). */
  public static final int MAX_API_KEYS = 10_000;

  public CreateApiKey {
    roles =
        roles == null || roles.isEmpty()
            ? Collections.emptySet()
            : Collections.unmodifiableSet(EnumSet.copyOf(roles));
  }
}
