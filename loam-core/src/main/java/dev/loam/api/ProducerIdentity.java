package dev.loam.api;

/**
 * Makes an append idempotent (Kafka's idempotent producer): a retry with the same producer id,
 * epoch and base sequence returns the first append's offsets instead of appending again. The
 * sequence counts records per partition: the next append continues at {@code baseSequence +
 * records}. An idempotent append must target a single partition.
 */
public record ProducerIdentity(long producerId, short producerEpoch, int baseSequence) {
  public ProducerIdentity {
    if (producerId < 0 || producerEpoch < 0 || baseSequence < 0) {
      throw new IllegalArgumentException(
          "producer fields must be >= 0 producerId="
              + producerId
              + " producerEpoch="
              + producerEpoch
              + " baseSequence="
              + baseSequence);
    }
  }
}
