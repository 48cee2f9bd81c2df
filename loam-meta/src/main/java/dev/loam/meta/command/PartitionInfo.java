package dev.loam.meta.command;

/**
 * A partition's bounds: records {@code [logStartOffset, highWatermark)} are readable. In the
 * leaderless path every committed record is visible, so the high watermark is the next offset.
 */
public record PartitionInfo(
    long streamId, int partition, long logStartOffset, long highWatermark) {}
