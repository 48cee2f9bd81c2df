package dev.loam.meta;

import java.time.Duration;
import java.util.Objects;

/**
 * The sequencer's windows (stream-engine.txt §3 commit window). Every replica must run with the
 * same values, since they change what apply does.
 *
 * @param staleCommitAfter a CommitWal whose object time is older than the metastore clock minus
 *     this is refused with STALE_COMMIT (default 15 min)
 * @param dedupeRetention commit dedupe records are pruned once older than this (default 30 min)
 * @param maxFutureStamp the proposing replica refuses commands stamped further ahead of its clock
 *     (default 60 s)
 * @param producerBatchesKept batch sequences remembered per producer id (default 5, as Kafka)
 */
public record MetaSettings(
    Duration staleCommitAfter,
    Duration dedupeRetention,
    Duration maxFutureStamp,
    int producerBatchesKept) {

  public MetaSettings {
    Objects.requireNonNull(staleCommitAfter, "staleCommitAfter");
    Objects.requireNonNull(dedupeRetention, "dedupeRetention");
    Objects.requireNonNull(maxFutureStamp, "maxFutureStamp");
    if (dedupeRetention.compareTo(staleCommitAfter) < 0) {
      // A retry inside the stale window must still find its dedupe record (§3).
      throw new IllegalArgumentException(
          "dedupeRetention must be >= staleCommitAfter dedupeRetention="
              + dedupeRetention
              + " staleCommitAfter="
              + staleCommitAfter);
    }
    if (producerBatchesKept < 1 || producerBatchesKept > 64) {
      throw new IllegalArgumentException("producerBatchesKept=" + producerBatchesKept);
    }
  }

  /** The spec's defaults: 15 min, 30 min, 60 s, 5. */
  public static MetaSettings defaults() {
    return new MetaSettings(
        Duration.ofMinutes(15), Duration.ofMinutes(30), Duration.ofSeconds(60), 5);
  }
}
