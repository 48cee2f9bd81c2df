package dev.loam.meta.command;

/**
 * Grows a stream to {@code partitions} partitions (the new total, Kafka's CreatePartitions). The
 * new partitions start empty at offset 0; existing partitions, their offsets, producers and
 * consumers are untouched. Refused with NOT_FOUND for a missing stream and INVALID unless {@code
 * partitions} is greater than the current count and at most {@link StreamConfig#MAX_PARTITIONS} (so
 * a retry of an applied AddPartitions is INVALID naming the current count, which then already
 * equals the request).
 */
public record AddPartitions(Origin origin, String namespace, String name, int partitions)
    implements Command {}
