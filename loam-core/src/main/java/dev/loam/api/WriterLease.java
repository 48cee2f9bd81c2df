package dev.loam.api;

import java.util.OptionalLong;

/**
 * A writer's lease on one source of one target partition, and how far that source has been appended
 * (docs/design/changelog.md): the state a fenced append is checked against.
 *
 * @param source the writer's name for its upstream position space
 * @param epoch the lease epoch; a fenced append must name the current one, so a writer whose lease
 *     was taken over (after it expired) is fenced
 * @param holder who holds (or last held) the lease
 * @param leaseExpiresAtMillis the lease is live while the metastore clock is below this (ms since
 *     the epoch)
 * @param sourceUpto the highest source position already appended, empty before the first; a writer
 *     resumes at {@code sourceUpto + 1}
 */
public record WriterLease(
    String namespace,
    String stream,
    int partition,
    String source,
    long epoch,
    String holder,
    long leaseExpiresAtMillis,
    OptionalLong sourceUpto) {

  /** The first source position not yet appended: 0 before the first append. */
  public long resumeFrom() {
    return sourceUpto.isPresent() ? sourceUpto.getAsLong() + 1 : 0;
  }
}
