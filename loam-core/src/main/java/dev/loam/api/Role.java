package dev.loam.api;

import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import java.util.Locale;

/**
 * What an API key may do (docs/security.md "Keys and roles"). Roles are independent: a key holds
 * exactly those it was created with.
 */
public enum Role {
  /** Append records to the streams of the key's scope. */
  PRODUCE("produce"),
  /** Fetch records, look up offsets, and take and commit named consumers in the key's scope. */
  CONSUME("consume"),
  /** Namespace admin: create, change and delete streams and consumers in the key's scope. */
  ADMIN("admin"),
  /**
   * Cluster admin: API keys, nodes, namespaces and journals. Only a cluster-wide key may hold it.
   */
  CLUSTER_ADMIN("cluster-admin");

  private final String label;

  Role(String label) {
    this.label = label;
  }

  /** The name in the HTTP API and the CLI: {@code produce}, {@code cluster-admin}, ... */
  public String label() {
    return label;
  }

  /** The role named {@code label} (case-insensitive); INVALID naming the valid ones otherwise. */
  public static Role parse(String label) {
    if (label != null) {
      String l = label.trim().toLowerCase(Locale.ROOT);
      for (Role r : values()) {
        if (r.label.equals(l)) {
          return r;
        }
      }
    }
    throw new LoamException(
        Kind.INVALID,
        "unknown role (produce, consume, admin, cluster-admin) role=" + shortened(label));
  }

  private static String shortened(String s) {
    return s == null || s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
