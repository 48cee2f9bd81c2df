package dev.loam.api;

/**
 * How to create a stream: partitions, durability class, and retention ({@code -1} for unlimited;
 * enforced by the owner's retention task).
 */
public record StreamSpec(
    int partitions,
    Durability durabilityClass,
    long retentionMillis,
    long retentionBytes,
    boolean compacted) {

  /** A standard-class stream with unlimited retention. */
  public static StreamSpec standard(int partitions) {
    return new StreamSpec(partitions, Durability.STANDARD, -1, -1, false);
  }

  /** This spec with another durability class. */
  public StreamSpec withClass(Durability c) {
    return new StreamSpec(partitions, c, retentionMillis, retentionBytes, compacted);
  }
}
