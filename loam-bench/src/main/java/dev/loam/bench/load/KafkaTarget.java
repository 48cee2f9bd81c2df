package dev.loam.bench.load;

import org.apache.kafka.clients.admin.Admin;

/**
 * What a {@link KafkaRun} drives through the Kafka Java client: the Apache Kafka broker of {@code
 * --vs-kafka} ({@link KafkaBroker}), or Loam's own Kafka gateway ({@code --transport kafka}), so
 * the same producer and consumer code measures both.
 */
interface KafkaTarget {
  /** The {@code bootstrap.servers} value. */
  String bootstrap();

  /** An admin client of the target, closed with it. */
  Admin admin();

  /**
   * CPU time the target spent outside this JVM so far, in ns: the broker process's; 0 for a gateway
   * in this JVM (the process CPU already counts it); -1 if the OS does not say.
   */
  long cpuNanos();
}
