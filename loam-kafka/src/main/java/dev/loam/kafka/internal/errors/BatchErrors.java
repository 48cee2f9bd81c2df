package dev.loam.kafka.internal.errors;

import dev.loam.api.InvalidBatchException;
import dev.loam.api.OutOfOrderSequenceException;
import dev.loam.api.ProducerFencedException;
import dev.loam.error.LoamException;
import org.apache.kafka.common.protocol.Errors;

/** The typed failures of the batch data path, mapped to Kafka's producer error codes. */
final class BatchErrors {
  private BatchErrors() {}

  /** The Kafka code for one of the batch failures, or null for any other failure. */
  static Errors of(Throwable t) {
    if (t instanceof OutOfOrderSequenceException) {
      return Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
    }
    if (t instanceof ProducerFencedException) {
      return Errors.INVALID_PRODUCER_EPOCH;
    }
    if (t instanceof InvalidBatchException) {
      // Bytes that fail their checksum or framing (CORRUPTION underneath) may have been damaged
      // in transit: CORRUPT_MESSAGE, which Kafka clients retry. A batch that is well-formed but
      // refused (a transactional batch, wrong record count, an unsupported codec) fails again:
      // INVALID_RECORD, which they do not.
      return t.getCause() instanceof LoamException le && le.kind() == LoamException.Kind.CORRUPTION
          ? Errors.CORRUPT_MESSAGE
          : Errors.INVALID_RECORD;
    }
    return null;
  }
}
