package dev.loam.api;

import java.util.Objects;

/**
 * How to create a stream: partitions, durability class, retention ({@code -1} for unlimited;
 * enforced by the owner's retention task), and the codec its appends are compressed with when they
 * name none ({@link Compression#NONE} by default).
 */
public record StreamSpec(
    int partitions,
    Durability durabilityClass,
    long retentionMillis,
    long retentionBytes,
    boolean compacted,
    Compression compression) {

  public StreamSpec {
    Objects.requireNonNull(durabilityClass, "durabilityClass");
    Objects.requireNonNull(compression, "compression");
  }

  /** A spec whose appends are not compressed unless they ask to be. */
  public StreamSpec(
      int partitions,
      Durability durabilityClass,
      long retentionMillis,
      long retentionBytes,
      boolean compacted) {
    this(partitions, durabilityClass, retentionMillis, retentionBytes, compacted, Compression.NONE);
  }

  /** A standard-class stream with unlimited retention. */
  public static StreamSpec standard(int partitions) {
    return new StreamSpec(partitions, Durability.STANDARD, -1, -1, false);
  }

  /** This spec with another durability class. */
  public StreamSpec withClass(Durability c) {
    return new StreamSpec(partitions, c, retentionMillis, retentionBytes, compacted, compression);
  }

  /** This spec with another default codec for its appends. */
  public StreamSpec withCompression(Compression c) {
    return new StreamSpec(
        partitions, durabilityClass, retentionMillis, retentionBytes, compacted, c);
  }
}
