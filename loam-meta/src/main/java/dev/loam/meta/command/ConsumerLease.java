package dev.loam.meta.command;

/**
 * The state of one named consumer on one partition: its lease and its committed offset.
 *
 * @param generation increases with every new lease term; 1 for the first
 * @param holder the current (or last) lease holder
 * @param leaseMillis the lease duration a renewal extends by
 * @param expiresAtMillis the lease is live while the metastore clock is below this
 * @param committedOffset the next offset to read, or {@link #NO_OFFSET} before the first commit
 */
public record ConsumerLease(
    long streamId,
    int partition,
    String consumer,
    long generation,
    String holder,
    long leaseMillis,
    long expiresAtMillis,
    long committedOffset) {
  /** No offset committed yet. */
  public static final long NO_OFFSET = -1;

  /** Whether the lease is live at metastore time {@code clockMillis}. */
  public boolean liveAt(long clockMillis) {
    return clockMillis < expiresAtMillis;
  }
}
