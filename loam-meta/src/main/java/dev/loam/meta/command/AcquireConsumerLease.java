package dev.loam.meta.command;

import java.util.Objects;

/**
 * Takes or renews the lease of the named consumer {@code consumer} on one partition
 * (stream-engine.txt §7 named consumers). The lease carries a generation; only the current
 * generation may commit offsets, so a holder that lost its lease is fenced.
 *
 * <ul>
 *   <li>No lease, or the lease expired by the metastore clock: the caller gets a new generation
 *       (the previous one + 1) expiring {@code leaseMillis} from the metastore clock.
 *   <li>A live lease of the same {@code holder}: renewed (a heartbeat), same generation; so a retry
 *       after an unknown outcome is harmless.
 *   <li>A live lease of another holder: refused with {@code CONFLICT} naming the holder and expiry.
 * </ul>
 *
 * @param streamId the stream's id (a stream re-created under the same name is another stream)
 * @param holder who holds the lease: 1..{@link #MAX_HOLDER_LENGTH} characters
 * @param leaseMillis 1..{@link #MAX_LEASE_MILLIS}
 */
public record AcquireConsumerLease(
    Origin origin, long streamId, int partition, String consumer, String holder, long leaseMillis)
    implements Command {
  /** The longest lease: a consumer that vanished blocks its partition at most this long. */
  public static final long MAX_LEASE_MILLIS = 3_600_000L;

  /** Longest holder id, in UTF-16 chars. */
  public static final int MAX_HOLDER_LENGTH = 249;

  public AcquireConsumerLease {
    Objects.requireNonNull(consumer, "consumer");
    Objects.requireNonNull(holder, "holder");
  }
}
