package dev.loam.client;

import java.util.Objects;

/**
 * What {@link LoamClient#createStream} asks for; unset values take the server's defaults
 * (docs/reference/http-api.md "Streams").
 *
 * @param name the stream name
 * @param partitions 1..10000
 * @param durabilityClass {@code standard} or {@code express}
 * @param retentionMs -1 for unlimited
 * @param retentionBytes -1 for unlimited
 * @param cleanupPolicy {@code delete} or {@code compact}
 */
public record StreamSpec(
    String name,
    int partitions,
    String durabilityClass,
    long retentionMs,
    long retentionBytes,
    String cleanupPolicy) {
  public StreamSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(durabilityClass, "durabilityClass");
    Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1: " + partitions);
    }
  }

  /** A standard stream, unlimited retention, delete policy. */
  public static StreamSpec of(String name, int partitions) {
    return new StreamSpec(name, partitions, "standard", -1, -1, "delete");
  }

  public StreamSpec withClass(String durabilityClass) {
    return new StreamSpec(
        name, partitions, durabilityClass, retentionMs, retentionBytes, cleanupPolicy);
  }

  public StreamSpec withRetention(long retentionMs, long retentionBytes) {
    return new StreamSpec(
        name, partitions, durabilityClass, retentionMs, retentionBytes, cleanupPolicy);
  }

  public StreamSpec withCleanupPolicy(String cleanupPolicy) {
    return new StreamSpec(
        name, partitions, durabilityClass, retentionMs, retentionBytes, cleanupPolicy);
  }
}
