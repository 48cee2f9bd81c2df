package dev.loam.bench.load;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;

/**
 * What a {@link KafkaRun} drives through the Kafka Java client: the Apache Kafka broker of {@code
 * --vs-kafka} ({@link KafkaBroker}), or Loam's own Kafka gateways ({@code --transport kafka},
 * {@link GatewayTarget}), so the same producer and consumer code measures both.
 */
interface KafkaTarget {
  /** The {@code bootstrap.servers} value. */
  String bootstrap();

  /**
   * Settings every client of the target adds (security protocol, truststore, SASL); none by
   * default.
   */
  default Map<String, Object> clientSettings() {
    return Map.of();
  }

  /** An admin client of the target, closed with it. */
  Admin admin();

  /**
   * Creates the run's topic and returns once every node of the target serves it. {@code fsync} asks
   * for an fsync before each ack, which only the broker can be told per topic.
   */
  void createTopic(String topic, int partitions, boolean fsync) throws Exception;

  /** Deletes the run's topic. */
  void deleteTopic(String topic) throws Exception;

  /**
   * CPU time the target spent outside this JVM so far, in ns: the broker process's; 0 for a gateway
   * in this JVM (the process CPU already counts it); -1 if the OS does not say.
   */
  long cpuNanos();

  /**
   * Marks an edge of the measured window: called when it opens and when it closes, so that {@link
   * #windowFigures} can say what the target did in between. The broker has nothing to mark.
   */
  default void markWindow() {}

  /**
   * The target's own figures over the measured window, added to the run's ({@code records}: those
   * acked in it); empty for the broker, whose inside the bench cannot see.
   */
  default Map<String, Object> windowFigures(long records) {
    return Map.of();
  }
}
