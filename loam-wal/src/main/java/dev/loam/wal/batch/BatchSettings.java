package dev.loam.wal.batch;

import java.util.Objects;

/**
 * The batch-level fields {@link RecordBatchEncoder} writes: base offset, codec, timestamp type and
 * the idempotent-producer triple (-1 each when the producer is not idempotent).
 */
public record BatchSettings(
    long baseOffset,
    Compression compression,
    TimestampType timestampType,
    long producerId,
    short producerEpoch,
    int baseSequence) {

  /**
   * @throws NullPointerException if {@code compression} or {@code timestampType} is null
   */
  public BatchSettings {
    Objects.requireNonNull(compression, "compression");
    Objects.requireNonNull(timestampType, "timestampType");
  }

  /** Base offset 0, CREATE_TIME, no producer id/epoch/sequence: what a plain producer sends. */
  public static BatchSettings plain(Compression compression) {
    return new BatchSettings(0L, compression, TimestampType.CREATE_TIME, -1L, (short) -1, -1);
  }
}
