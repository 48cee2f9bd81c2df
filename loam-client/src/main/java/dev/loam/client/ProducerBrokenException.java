package dev.loam.client;

/**
 * An {@link IdempotentProducer} can no longer send to a partition: an earlier send there ended with
 * an unknown outcome, or the server refused its sequence or epoch. Reusing the sequence could make
 * the server take new records for a retry of old ones, so the producer refuses instead; create a
 * new producer (a new id) and, if needed, read the partition to see what was appended.
 */
public final class ProducerBrokenException extends LoamClientException {
  private static final long serialVersionUID = 1L;

  public ProducerBrokenException(String message, Throwable cause) {
    super("producer_broken", 0, message, null, cause);
  }
}
