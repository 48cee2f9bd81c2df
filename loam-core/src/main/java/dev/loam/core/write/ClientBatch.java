package dev.loam.core.write;

import dev.loam.api.InvalidBatchException;
import dev.loam.error.LoamException;
import dev.loam.wal.batch.RecordBatch;
import java.nio.ByteBuffer;

/**
 * Validates one RecordBatch v2 a client built (a Kafka producer's batch through the gateway) before
 * it is stored verbatim: exactly one batch, magic 2, CRC-32C, lengths, a records section that
 * decodes (whatever its codec) to exactly {@code recordCount} records at offset deltas {@code 0 ..
 * recordCount-1}, producer fields in range, and no transactional or control batch (Loam has no
 * transactions). Any failure is an {@link InvalidBatchException} naming the field; the bytes are
 * never partly accepted.
 */
final class ClientBatch {
  private ClientBatch() {}

  /**
   * The validated batch as a pending WAL batch of {@code partition}.
   *
   * @param subject names the stream and partition in messages
   */
  static PendingBatch validate(long streamId, int partition, ByteBuffer bytes, String subject) {
    if (bytes == null) {
      throw new InvalidBatchException("record batch missing " + subject, null);
    }
    ByteBuffer in = bytes.duplicate();
    RecordBatch batch;
    try {
      batch = RecordBatch.readFrom(in);
      if (in.hasRemaining()) {
        throw invalid(
            "exactly one record batch per append expected, found trailing bytes remaining="
                + in.remaining(),
            subject);
      }
      if (batch.isTransactional() || batch.isControl()) {
        throw invalid(
            "transactional and control batches are not supported transactional="
                + batch.isTransactional()
                + " control="
                + batch.isControl(),
            subject);
      }
      int count = batch.recordCount();
      if (count < 1) {
        throw invalid("record batch recordCount must be at least 1 recordCount=" + count, subject);
      }
      if (batch.lastOffsetDelta() != count - 1) {
        throw invalid(
            "record batch lastOffsetDelta must be recordCount - 1 lastOffsetDelta="
                + batch.lastOffsetDelta()
                + " recordCount="
                + count,
            subject);
      }
      long pid = batch.producerId();
      if (pid < -1) {
        throw invalid("record batch producerId out of range producerId=" + pid, subject);
      }
      if (pid >= 0 && (batch.producerEpoch() < 0 || batch.baseSequence() < 0)) {
        throw invalid(
            "idempotent record batch needs producerEpoch >= 0 and baseSequence >= 0 producerEpoch="
                + batch.producerEpoch()
                + " baseSequence="
                + batch.baseSequence(),
            subject);
      }
      // Decodes every record: counts, varints, lengths, strictly increasing offset deltas up to
      // lastOffsetDelta, which with lastOffsetDelta = count - 1 means exactly 0 .. count-1.
      batch.records();
    } catch (InvalidBatchException e) {
      throw e;
    } catch (LoamException e) {
      throw new InvalidBatchException(e.getMessage() + " " + subject, e);
    }
    byte[] copy = new byte[batch.sizeInBytes()];
    batch.bytes().get(copy);
    boolean idempotent = batch.producerId() >= 0;
    return new PendingBatch(
        streamId,
        partition,
        copy,
        batch.recordCount(),
        batch.maxTimestamp(),
        batch.producerId(),
        idempotent ? batch.producerEpoch() : -1,
        idempotent ? batch.baseSequence() : -1);
  }

  private static InvalidBatchException invalid(String message, String subject) {
    return new InvalidBatchException(message + " " + subject, null);
  }
}
