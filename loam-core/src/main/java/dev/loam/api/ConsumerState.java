package dev.loam.api;

import java.util.OptionalLong;

/**
 * A named consumer's state on one partition (stream-engine.txt §7): its lease and its committed
 * offset.
 *
 * @param generation the lease generation; a commit must name the current one, so a holder whose
 *     lease was taken over (after it expired) is fenced
 * @param holder who holds (or last held) the lease
 * @param leaseExpiresAtMillis the lease is live while the metastore clock is below this (ms since
 *     the epoch)
 * @param committedOffset the next offset the consumer reads, empty before its first commit
 */
public record ConsumerState(
    String namespace,
    String stream,
    int partition,
    String consumer,
    long generation,
    String holder,
    long leaseExpiresAtMillis,
    OptionalLong committedOffset) {}
