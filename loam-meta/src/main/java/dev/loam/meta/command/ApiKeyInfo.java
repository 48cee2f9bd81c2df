package dev.loam.meta.command;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * An API key as the metastore holds it: its public id, its scope (a namespace, or null for
 * cluster-wide), its roles, when it was created and revoked (metastore clock), and the SCRAM values
 * that verify its secret. The secret itself is never stored.
 *
 * @param roles immutable, never null
 * @param revokedAtMillis the metastore clock when it was revoked, or {@link #ACTIVE}
 */
public record ApiKeyInfo(
    String id,
    String scope,
    Set<ApiKeyRole> roles,
    long createdAtMillis,
    long revokedAtMillis,
    ScramSecrets secrets) {

  /** {@code revokedAtMillis} of a key that is not revoked. */
  public static final long ACTIVE = -1L;

  /** Length of an id: 16 characters of the lower-case RFC 4648 base32 alphabet (80 bits). */
  public static final int ID_LENGTH = 16;

  public ApiKeyInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(secrets, "secrets");
    roles =
        roles == null || roles.isEmpty()
            ? Collections.emptySet()
            : Collections.unmodifiableSet(EnumSet.copyOf(roles));
  }

  /** Whether the key has been revoked. */
  public boolean revoked() {
    return revokedAtMillis != ACTIVE;
  }

  /** This key, revoked at {@code atMillis}. */
  public ApiKeyInfo revokedAt(long atMillis) {
    return new ApiKeyInfo(id, scope, roles, createdAtMillis, atMillis, secrets);
  }

  /** Whether {@code id} is {@code [a-z2-7]{16}}: lower-case base32, the ids the proposer makes. */
  public static boolean isValidId(String id) {
    if (id == null || id.length() != ID_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char ch = id.charAt(i);
      if (!((ch >= 'a' && ch <= 'z') || (ch >= '2' && ch <= '7'))) {
        return false;
      }
    }
    return true;
  }
}
