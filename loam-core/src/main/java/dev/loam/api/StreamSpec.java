package dev.loam.api;

import java.util.Objects;

/**
 * How to create a stream: partitions, durability class, retention ({@code -1} for unlimited;
 * enforced by the owner's retention task), the codec its appends are compressed with when they name
 * none ({@link Compression#NONE} by default), and for a quorum stream an optional placement hint:
 * the zone or node id its producers run in, where its journals' leaders are moved
 * (docs/design/quorum.md "Leader transfer"; null for none, and always null in a description).
 */
public record StreamSpec(
    int partitions,
    Durability durabilityClass,
    long retentionMillis,
    long retentionBytes,
    boolean compacted,
    Compression compression,
    String placementHint) {

  public StreamSpec {
    Objects.requireNonNull(durabilityClass, "durabilityClass");
    Objects.requireNonNull(compression, "compression");
  }

  /** A spec without a placement hint. */
  public StreamSpec(
      int partitions,
      Durability durabilityClass,
      long retentionMillis,
      long retentionBytes,
      boolean compacted,
      Compression compression) {
    this(
        partitions, durabilityClass, retentionMillis, retentionBytes, compacted, compression, null);
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
    return new StreamSpec(
        partitions, c, retentionMillis, retentionBytes, compacted, compression, placementHint);
  }

  /** This spec with another default codec for its appends. */
  public StreamSpec withCompression(Compression c) {
    return new StreamSpec(
        partitions, durabilityClass, retentionMillis, retentionBytes, compacted, c, placementHint);
  }

  /**
   * This spec with a placement hint (a zone or a node id, 1..128 characters; null for none), which
   * only quorum streams accept.
   */
  public StreamSpec withPlacementHint(String hint) {
    return new StreamSpec(
        partitions, durabilityClass, retentionMillis, retentionBytes, compacted, compression, hint);
  }
}
