package dev.loam.meta.command;

import java.util.EnumSet;
import java.util.Set;

/**
 * What an API key may do, each role one bit of the {@code roles} byte in the command, outcome and
 * snapshot encodings (docs/formats/metastore-commands.md). The high four bits are reserved.
 */
public enum ApiKeyRole {
  /** Append records to the streams of the key's scope. */
  PRODUCE(1, "produce"),
  /** Fetch records and commit named consumers' offsets in the key's scope. */
  CONSUME(2, "consume"),
  /** Namespace admin: create, reconfigure and delete streams and consumers in the key's scope. */
  ADMIN(4, "admin"),
  /** Cluster admin: API keys, nodes and namespaces. Only a cluster-wide key may hold it. */
  CLUSTER_ADMIN(8, "cluster-admin");

  /** The bits a roles byte may set; the others are reserved and must be 0. */
  public static final int ALL_BITS = 0x0F;

  private final int bit;
  private final String label;

  ApiKeyRole(int bit, String label) {
    this.bit = bit;
    this.label = label;
  }

  /** This role's bit in the roles byte. */
  public int bit() {
    return bit;
  }

  /** The role's name in the HTTP API and the CLI ({@code produce}, {@code cluster-admin}, ...). */
  public String label() {
    return label;
  }

  /** The roles byte of {@code roles}. */
  public static int toBits(Set<ApiKeyRole> roles) {
    int bits = 0;
    for (ApiKeyRole r : roles) {
      bits |= r.bit;
    }
    return bits;
  }

  /** The roles of a roles byte; reserved bits are ignored here and checked by the readers. */
  public static Set<ApiKeyRole> fromBits(int bits) {
    EnumSet<ApiKeyRole> out = EnumSet.noneOf(ApiKeyRole.class);
    for (ApiKeyRole r : values()) {
      if ((bits & r.bit) != 0) {
        out.add(r);
      }
    }
    return out;
  }
}
