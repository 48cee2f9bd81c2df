package dev.loam.meta.command;

import dev.loam.wal.DurabilityClass;
import dev.loam.wal.batch.Compression;
import java.util.Objects;

/**
 * A stream's configuration. Retention fields are enforced by the owner's retention task; {@code -1}
 * means unlimited. {@code compression} is the codec appends of the stream are encoded with when the
 * append names none (docs/formats/compression.md "Which codec Loam writes").
 */
public record StreamConfig(
    int partitions,
    DurabilityClass durabilityClass,
    long retentionMillis,
    long retentionBytes,
    CleanupPolicy cleanupPolicy,
    Compression compression) {

  /** The most partitions a stream may have. */
  public static final int MAX_PARTITIONS = 10_000;

  public StreamConfig {
    Objects.requireNonNull(durabilityClass, "durabilityClass");
    Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
    Objects.requireNonNull(compression, "compression");
  }

  /** A configuration whose appends are not compressed unless they ask to be. */
  public StreamConfig(
      int partitions,
      DurabilityClass durabilityClass,
      long retentionMillis,
      long retentionBytes,
      CleanupPolicy cleanupPolicy) {
    this(
        partitions,
        durabilityClass,
        retentionMillis,
        retentionBytes,
        cleanupPolicy,
        Compression.NONE);
  }

  /** This configuration with another default codec. */
  public StreamConfig withCompression(Compression c) {
    return new StreamConfig(
        partitions, durabilityClass, retentionMillis, retentionBytes, cleanupPolicy, c);
  }

  /** A standard-class stream with unlimited retention and the delete policy. */
  public static StreamConfig standard(int partitions) {
    return new StreamConfig(partitions, DurabilityClass.STANDARD, -1, -1, CleanupPolicy.DELETE);
  }

  /** How a stream discards old records. */
  public enum CleanupPolicy {
    DELETE(0),
    COMPACT(1);

    private final int code;

    CleanupPolicy(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }
  }
}
