package dev.loam.meta.command;

/**
 * Changes a stream's retention and cleanup policy; each field is optional ({@code null}: keep the
 * current value), so two updates of different fields never undo each other. The partition count and
 * the durability class are not changeable here: partitions only grow, by {@link AddPartitions}, and
 * a stream's class decides which WAL its data already sits in. Refused with NOT_FOUND for a missing
 * stream, INVALID naming the field for an out-of-range value or when no field is given. Applying
 * the same update twice is harmless (the second changes nothing).
 */
public record UpdateStreamConfig(
    Origin origin,
    String namespace,
    String name,
    Long retentionMillis,
    Long retentionBytes,
    StreamConfig.CleanupPolicy cleanupPolicy)
    implements Command {

  /** True when no field is set: such an update is refused as INVALID. */
  public boolean isEmpty() {
    return retentionMillis == null && retentionBytes == null && cleanupPolicy == null;
  }
}
