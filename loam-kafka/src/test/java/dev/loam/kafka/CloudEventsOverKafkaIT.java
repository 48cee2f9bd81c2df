package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.loam.api.StreamSpec;
import dev.loam.cloudevents.CloudEventIngest;
import dev.loam.cloudevents.HttpBinaryMode;
import dev.loam.cloudevents.JsonFormat;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream of ingested CloudEvents is a valid Kafka topic of CloudEvents
 * (docs/reference/cloudevents.md): events ingested in structured and binary mode, read through the
 * Kafka gateway by an unmodified Kafka consumer with the CloudEvents SDK's Kafka binding ({@code
 * cloudevents-kafka}'s {@link CloudEventDeserializer}), decode with every attribute, extension and
 * the data as sent (as strings: the Kafka binding's headers carry no types).
 */
class CloudEventsOverKafkaIT {
  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
    k.node.log().createStream("default", "events", StreamSpec.standard(1)).join();
  }

  @AfterEach
  void stop() {
    k.close();
  }

  @Test
  void ingestedEventsDecodeWithTheSdkKafkaBinding() throws Exception {
    dev.loam.cloudevents.CloudEvent structured =
        JsonFormat.parseEvent(
            ("{\"specversion\":\"1.0\",\"id\":\"o-1\",\"source\":\"/shop/web\","
                    + "\"type\":\"com.example.order.placed\",\"time\":\"2026-10-01T12:00:00.5+02:00\","
                    + "\"subject\":\"orders/7\",\"datacontenttype\":\"application/json\","
                    + "\"priority\":3,\"express\":true,\"partitionkey\":\"customer-9\","
                    + "\"data\":{\"sku\":\"A-7\"}}")
                .getBytes(StandardCharsets.UTF_8));
    dev.loam.cloudevents.CloudEvent binary =
        HttpBinaryMode.parse(
            List.of(
                Map.entry("ce-specversion", "1.0"),
                Map.entry("ce-id", "caf%C3%A9"),
                Map.entry("ce-source", "/hooks"),
                Map.entry("ce-type", "hook.fired"),
                Map.entry("content-type", "text/plain")),
            "three".getBytes(StandardCharsets.UTF_8));
    new CloudEventIngest(k.node.log())
        .ingest(
            "default",
            "events",
            List.of(structured, binary),
            OptionalInt.of(0),
            () -> {},
            CloudEventIngest.DEFAULT_WINDOW)
        .get();

    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, k.bootstrap);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "ce-reader");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, CloudEventDeserializer.class);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    List<ConsumerRecord<String, CloudEvent>> got = new ArrayList<>();
    try (KafkaConsumer<String, CloudEvent> c = new KafkaConsumer<>(p)) {
      c.assign(List.of(KafkaTestSupport.tp("events", 0)));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (got.size() < 2 && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(200)).forEach(got::add);
      }
    }
    assertThat(got).hasSize(2);
    CloudEvent a = got.get(0).value();
    assertThat(got.get(0).key()).isEqualTo("customer-9");
    assertThat(a.getSpecVersion().toString()).isEqualTo("1.0");
    assertThat(a.getId()).isEqualTo("o-1");
    assertThat(a.getSource().toString()).isEqualTo("/shop/web");
    assertThat(a.getType()).isEqualTo("com.example.order.placed");
    assertThat(a.getSubject()).isEqualTo("orders/7");
    assertThat(a.getTime().toInstant().toString()).isEqualTo("2026-10-01T10:00:00.500Z");
    assertThat(a.getDataContentType()).isEqualTo("application/json");
    assertThat(a.getExtension("priority")).isEqualTo("3");
    assertThat(a.getExtension("express")).isEqualTo("true");
    assertThat(a.getExtension("partitionkey")).isEqualTo("customer-9");
    assertThat(new String(a.getData().toBytes(), StandardCharsets.UTF_8))
        .isEqualTo("{\"sku\":\"A-7\"}");
    CloudEvent b = got.get(1).value();
    assertThat(b.getId()).isEqualTo("café");
    assertThat(b.getDataContentType()).isEqualTo("text/plain");
    assertThat(new String(b.getData().toBytes(), StandardCharsets.UTF_8)).isEqualTo("three");
  }
}
