package dev.loam.api;

/**
 * The acknowledgement of {@link Log#appendBatch}: the offset the sequencer assigned to the batch's
 * first record (its records hold the dense offsets after it), and the consistency token to pass to
 * a fetch on any node to read the write. Durable and committed, like every acknowledgement.
 *
 * @param duplicate true when an idempotent retry matched an earlier batch of the same producer
 *     ({@code baseOffset} is then the earlier batch's, as Kafka answers a retried batch)
 */
public record BatchAppendResult(long baseOffset, long consistencyToken, boolean duplicate) {}
