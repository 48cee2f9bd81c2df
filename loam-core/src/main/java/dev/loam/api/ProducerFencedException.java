package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * An idempotent append from a producer epoch older than the one the partition has seen for this
 * producer id (Kafka's INVALID_PRODUCER_EPOCH): a newer incarnation of the producer took over, and
 * nothing was appended. Kind FENCED.
 */
public class ProducerFencedException extends LoamException {
  private static final long serialVersionUID = 1L;

  public ProducerFencedException(String message) {
    super(Kind.FENCED, message);
  }
}
