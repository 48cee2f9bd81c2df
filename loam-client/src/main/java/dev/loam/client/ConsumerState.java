package dev.loam.client;

import java.util.OptionalLong;

/**
 * A named consumer's state for one partition (stream-engine.txt §7): the lease generation and
 * holder, and the committed offset (the next offset to read; empty before the first commit).
 *
 * @param generation 0 if the partition was never leased
 * @param holder empty if never leased
 */
public record ConsumerState(
    String namespace,
    String consumer,
    String stream,
    int partition,
    long generation,
    String holder,
    OptionalLong leaseExpiresAtMs,
    OptionalLong committedOffset) {}
