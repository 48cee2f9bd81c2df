package dev.loam.api;

import dev.loam.error.LoamException;

/**
 * An {@link IdempotentProducer} cannot append to a partition any more: an earlier append there
 * ended with an unknown outcome, or the partition refused the producer's sequence or epoch, so the
 * producer's next sequence is not known to be the one the partition expects. Nothing was appended.
 * Kind FENCED: take a new producer ({@link Log#idempotentProducer()}), after reading the partition
 * if the unknown append matters. The cause is the failure that broke the partition.
 */
public class ProducerBrokenException extends LoamException {
  private static final long serialVersionUID = 1L;

  public ProducerBrokenException(String message, Throwable cause) {
    super(Kind.FENCED, message, cause);
  }
}
