package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.api.AppendRecord;
import dev.loam.api.StreamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka Java client against an arrow stream: produce is refused with INVALID_REQUEST naming why
 * (docs/reference/arrow.md "The Kafka gateway"), nothing is stored, and a consumer does not receive
 * the stream's JSON records as Kafka records.
 */
class ArrowStreamRefusalIT {
  static final String SCHEMA =
      "{\"fields\":[{\"name\":\"n\",\"nullable\":false,"
          + "\"type\":{\"name\":\"int\",\"bitWidth\":32,\"isSigned\":true},\"children\":[]}]}";

  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
    k.node.log().createArrowStream("default", "arrow", StreamSpec.standard(1), SCHEMA).join();
  }

  @AfterEach
  void stop() {
    k.close();
  }

  @Test
  void produceIsRefusedAndNothingIsStored() throws Exception {
    try (KafkaProducer<byte[], byte[]> p =
        k.producer(Map.of(ProducerConfig.RETRIES_CONFIG, 0, ProducerConfig.ACKS_CONFIG, "all"))) {
      var sent =
          p.send(
              new ProducerRecord<>("arrow", 0, null, "{\"n\":1}".getBytes(StandardCharsets.UTF_8)));
      assertThatThrownBy(sent::get)
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("an arrow stream takes JSON records");
    }
    assertThat(
            k.node
                .log()
                .fetch("default", "arrow", 0, 0, 1 << 20, Duration.ZERO)
                .join()
                .highWatermark())
        .isZero();
  }

  @Test
  void aConsumerGetsNoRecordsOfAnArrowStream() {
    k.node
        .log()
        .append("default", "arrow", List.of(AppendRecord.of(null, "{\"n\":7}").toPartition(0)))
        .join();
    try (KafkaConsumer<byte[], byte[]> c = k.consumer()) {
      c.assign(List.of(KafkaTestSupport.tp("arrow", 0)));
      c.seekToBeginning(List.of(KafkaTestSupport.tp("arrow", 0)));
      assertThatThrownBy(
              () -> {
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (System.nanoTime() < deadline) {
                  assertThat(c.poll(Duration.ofMillis(200))).isEmpty();
                }
                throw new AssertionError("fetch was never refused");
              })
          // INVALID_REQUEST (42): the Java consumer has no handling of its own for it in a fetch.
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Unexpected error code 42");
    }
  }
}
