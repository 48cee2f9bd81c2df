package dev.loam.core.write;

import dev.loam.meta.command.CommitWal.Fence;

/**
 * One encoded RecordBatch v2 waiting in a WAL writer's buffer: its partition, its bytes, the
 * producer fields the sequencer checks, and its fence when it is part of a fenced append (null
 * otherwise; docs/design/changelog.md).
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
    Fence fence) {

  /** A batch that is not part of a fenced append. */
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
        null);
  }
}
