package dev.loam.meta.command;

/**
 * The writer lease of one source on one target partition, and how far that source has been appended
 * (docs/design/changelog.md "The writer lease"): only the current {@code epoch}, while live, may
 * make fenced appends, and each accepted one must start at {@code sourceUpto + 1}.
 *
 * @param source the writer's name for the upstream position space (a valid stream-name string)
 * @param epoch increases with every new lease term; 1 for the first
 * @param holder the current (or last) lease holder
 * @param leaseMillis the lease duration a renewal extends by
 * @param expiresAtMillis the lease is live while the metastore clock is below this
 * @param sourceUpto the highest source position already appended, or {@link #NOTHING} before the
 *     first fenced append
 */
public record WriterLease(
    long streamId,
    int partition,
    String source,
    long epoch,
    String holder,
    long leaseMillis,
    long expiresAtMillis,
    long sourceUpto) {
  /** No source position appended yet. */
  public static final long NOTHING = -1;

  /** Whether the lease is live at metastore time {@code clockMillis}. */
  public boolean liveAt(long clockMillis) {
    return clockMillis < expiresAtMillis;
  }
}
