package dev.loam.wal.object;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.ulid.Ulid;
import java.util.Objects;

/**
 * The identity of a WAL object: format version, durability class, ULID and writing node. Stored in
 * the header and repeated in the chunk index (docs/formats/wal-object-v1.md).
 */
public record WalHeader(int version, DurabilityClass durabilityClass, Ulid ulid, String nodeId) {
  /**
   * @throws NullPointerException if a field is null
   */
  public WalHeader {
    Objects.requireNonNull(durabilityClass, "durabilityClass");
    Objects.requireNonNull(ulid, "ulid");
    Objects.requireNonNull(nodeId, "nodeId");
  }
}
