package dev.loam.core.write;

/**
 * One encoded RecordBatch v2 waiting in a WAL writer's buffer: its partition, its bytes, and the
 * producer fields the sequencer checks.
 */
public record PendingBatch(
    long streamId,
    int partition,
    byte[] bytes,
    int recordCount,
    long maxTimestamp,
    long producerId,
    short producerEpoch,
    int baseSequence) {}
