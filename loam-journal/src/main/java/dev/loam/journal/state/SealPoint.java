package dev.loam.journal.state;

/**
 * Where one hosted partition's tail starts: offsets below {@code sealedOffset} are sealed.
 *
 * @param tailBytes the batch bytes of the partition's unsealed tail
 */
public record SealPoint(long streamId, int partition, long sealedOffset, long tailBytes) {}
