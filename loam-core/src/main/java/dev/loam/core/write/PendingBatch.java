package dev.loam.core.write;

import dev.loam.wal.object.ChunkEncoding;
import java.util.Objects;

/**
 * One encoded batch waiting in a WAL writer's buffer: its partition, its bytes (a RecordBatch v2
 * for encoding KAFKA, an arrow batch frame for ARROW, docs/formats/arrow-batch-v1.md), and the
 * producer fields the sequencer checks. The encoding becomes the WAL chunk's.
 */
public record PendingBatch(
    long streamId,
    int partition,
    byte[] bytes,
    int recordCount,
    long maxTimestamp,
    long producerId,
    short producerEpoch,
    int baseSequence,
    ChunkEncoding encoding) {

  public PendingBatch {
    Objects.requireNonNull(encoding, "encoding");
  }

  /** A Kafka RecordBatch v2. */
  public PendingBatch(
      long streamId,
      int partition,
      byte[] bytes,
      int recordCount,
      long maxTimestamp,
      long producerId,
      short producerEpoch,
      int baseSequence) {
    this(
        streamId,
        partition,
        bytes,
        recordCount,
        maxTimestamp,
        producerId,
        producerEpoch,
        baseSequence,
        ChunkEncoding.KAFKA);
  }
}
