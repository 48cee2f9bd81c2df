package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * An idempotent append whose base sequence is neither the producer's next sequence on the partition
 * nor one of its recently appended batches (Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER): nothing was
 * appended. Kind CONFLICT.
 */
public class OutOfOrderSequenceException extends LoamException {
  private static final long serialVersionUID = 1L;

  public OutOfOrderSequenceException(String message) {
    super(Kind.CONFLICT, message);
  }
}
