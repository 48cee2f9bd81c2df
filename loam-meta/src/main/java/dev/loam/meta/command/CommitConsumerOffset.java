package dev.loam.meta.command;

import java.util.Objects;

/**
 * Commits the next offset the named consumer will read from one partition (stream-engine.txt §7).
 * Refused with {@code FENCED} unless {@code generation} is the partition lease's current generation
 * and the lease is live by the metastore clock; refused with {@code OUT_OF_RANGE} unless {@code
 * offset} is within {@code [logStartOffset, highWatermark]}. A successful commit also renews the
 * lease. Committing the same offset again is harmless (a retry).
 */
public record CommitConsumerOffset(
    Origin origin, long streamId, int partition, String consumer, long generation, long offset)
    implements Command {
  public CommitConsumerOffset {
    Objects.requireNonNull(consumer, "consumer");
  }
}
