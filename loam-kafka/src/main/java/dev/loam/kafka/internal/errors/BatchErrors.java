package dev.loam.kafka.internal.errors;

import org.apache.kafka.common.protocol.Errors;

/** The typed failures of the batch data path, mapped to Kafka's producer error codes. */
final class BatchErrors {
  private BatchErrors() {}

  /** The Kafka code for one of the batch failures, or null for any other failure. */
  static Errors of(Throwable t) {
    return null;
  }
}
