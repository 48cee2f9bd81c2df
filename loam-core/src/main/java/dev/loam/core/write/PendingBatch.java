package dev.loam.core.write;

import dev.loam.meta.command.CommitWal.Fence;
import dev.loam.wal.object.ChunkEncoding;
import dev.loam.wal.object.KeyEncryptionKey;
import java.util.Objects;

/**
 * One encoded batch waiting in a WAL writer's buffer: its partition, its bytes (a RecordBatch v2
 * for encoding KAFKA, an arrow batch frame for ARROW, docs/formats/arrow-batch-v1.md; the encoding
 * becomes the WAL chunk's), the producer fields the sequencer checks, its fence when it is part of
 * a fenced append (null otherwise; docs/design/changelog.md), and the key its chunk is sealed under
 * ({@code sealWith}, null for a namespace written plain; docs/formats/wal-object-v2.md).
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
    ChunkEncoding encoding,
    Fence fence,
    KeyEncryptionKey sealWith) {

  public PendingBatch {
    Objects.requireNonNull(encoding, "encoding");
  }

  /** A Kafka RecordBatch v2, written plain, not part of a fenced append. */
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
        ChunkEncoding.KAFKA,
        null,
        null);
  }

  /** A batch of {@code encoding}, written plain until {@link #sealedWith}. */
  public PendingBatch(
      long streamId,
      int partition,
      byte[] bytes,
      int recordCount,
      long maxTimestamp,
      long producerId,
      short producerEpoch,
      int baseSequence,
      ChunkEncoding encoding) {
    this(
        streamId,
        partition,
        bytes,
        recordCount,
        maxTimestamp,
        producerId,
        producerEpoch,
        baseSequence,
        encoding,
        null,
        null);
  }

  /** A Kafka RecordBatch v2 of a fenced append, written plain until {@link #sealedWith}. */
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
        ChunkEncoding.KAFKA,
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
        encoding,
        fence,
        kek);
  }
}
