package dev.loam.api;

import dev.loam.wal.DurabilityClass;

/**
 * How to create a stream: partitions, durability class, and retention ({@code -1} for unlimited;
 * enforced by the owner's retention task).
 */
public record StreamSpec(
    int partitions,
    DurabilityClass durabilityClass,
    long retentionMillis,
    long retentionBytes,
    boolean compacted) {

  /** A standard-class stream with unlimited retention. */
  public static StreamSpec standard(int partitions) {
    return new StreamSpec(partitions, DurabilityClass.STANDARD, -1, -1, false);
  }

  /** This spec with another durability class. */
  public StreamSpec withClass(DurabilityClass c) {
    return new StreamSpec(partitions, c, retentionMillis, retentionBytes, compacted);
  }
}
