package dev.loam.core.write;

import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.wal.object.KeyEncryptionKey;

/**
 * One encoded RecordBatch v2 waiting in a WAL writer's buffer: its partition, its bytes, the
 * producer fields the sequencer checks, its fence when it is part of a fenced append (null
 * otherwise; docs/design/changelog.md), and the key its chunk is sealed under ({@code sealWith},
 * null for a namespace written plain; docs/formats/wal-object-v2.md).
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
    Fence fence,
    KeyEncryptionKey sealWith) {

  /** A batch written plain, not part of a fenced append. */
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
        null,
        null);
  }

  /** A batch of a fenced append, written plain until {@link #sealedWith}. */
  public PendingBatch(
      long streamId,
      int partition,
      byte[] bytes,
      int recordCount,
      long maxTimestamp,
      long producerId,
      short producerEpoch,
      int baseSequence,
      Fence fence) {
    this(
        streamId,
        partition,
        bytes,
        recordCount,
        maxTimestamp,
        producerId,
        producerEpoch,
        baseSequence,
        fence,
        null);
  }

  /** This batch, sealed under {@code kek} (or plain when it is null). */
  public PendingBatch sealedWith(KeyEncryptionKey kek) {
    return new PendingBatch(
        streamId,
        partition,
        bytes,
        recordCount,
        maxTimestamp,
        producerId,
        producerEpoch,
        baseSequence,
        fence,
        kek);
  }
}
