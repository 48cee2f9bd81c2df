package dev.loam.examples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.http.LoamHttpServer;
import dev.loam.kafka.KafkaGateway;
import dev.loam.kafka.KafkaGatewaySettings;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One node serving both its native HTTP API and the Kafka protocol: a record produced by the Kafka
 * Java client is read back over HTTP with its key, value, headers and timestamp, and a record
 * produced over HTTP is consumed by the Kafka client the same way. A topic is a stream of the
 * gateway's namespace, {@code default}.
 */
class KafkaHttpInteropIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void recordsProducedOverKafkaReadOverHttpAndTheOtherWayRound() throws Exception {
    try (LoamNode node =
            LoamNode.builder()
                .nodeId("n1")
                .dataDir(dir)
                .settings(NodeSettings.defaults().withFlushInterval(Duration.ofMillis(5)))
                .start();
        LoamHttpServer http = LoamHttpServer.builder().node(node).port(0).start();
        KafkaGateway kafka =
            KafkaGateway.start(node, KafkaGatewaySettings.builder().port(0).build())) {
      String bootstrap = "127.0.0.1:" + kafka.port();
      String base = "http://127.0.0.1:" + http.port() + "/v1/namespaces/default/streams/orders";
      try (Admin admin =
          Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
        admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get();
      }
      HttpClient client = HttpClient.newHttpClient();

      // Kafka -> HTTP.
      RecordMetadata md;
      try (KafkaProducer<String, String> p =
          new KafkaProducer<>(
              Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
              new StringSerializer(),
              new StringSerializer())) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>("orders", 0, 1_718_000_000_000L, "order-1", "{\"qty\":3}");
        r.headers().add(new RecordHeader("source", "kafka".getBytes(StandardCharsets.UTF_8)));
        md = p.send(r).get();
      }
      JsonNode got =
          JSON.readTree(
              client
                  .send(
                      HttpRequest.newBuilder(
                              URI.create(base + "/partitions/0/records?offset=" + md.offset()))
                          .build(),
                      HttpResponse.BodyHandlers.ofString())
                  .body());
      JsonNode first = got.get("records").get(0);
      assertThat(first.get("offset").asLong()).isEqualTo(md.offset());
      assertThat(first.get("key").asText()).isEqualTo("order-1");
      assertThat(first.get("value").asText()).isEqualTo("{\"qty\":3}");
      assertThat(first.get("timestamp").asLong()).isEqualTo(1_718_000_000_000L);
      assertThat(first.get("headers").get("source").asText()).isEqualTo("kafka");

      // HTTP -> Kafka.
      HttpResponse<String> produced =
          client.send(
              HttpRequest.newBuilder(URI.create(base + "/records"))
                  .header("content-type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"records\":[{\"key\":\"order-2\",\"value\":\"from http\","
                              + "\"headers\":{\"source\":\"http\"},\"timestamp\":1718000000001,"
                              + "\"partition\":0}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(produced.statusCode()).isEqualTo(200);
      long httpOffset = JSON.readTree(produced.body()).get("records").get(0).get("offset").asLong();
      assertThat(httpOffset).isEqualTo(md.offset() + 1);
      List<ConsumerRecord<String, String>> read = new ArrayList<>();
      try (KafkaConsumer<String, String> c =
          new KafkaConsumer<>(
              Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
              new StringDeserializer(),
              new StringDeserializer())) {
        TopicPartition tp = new TopicPartition("orders", 0);
        c.assign(List.of(tp));
        c.seek(tp, httpOffset);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (read.isEmpty() && System.nanoTime() < deadline) {
          c.poll(Duration.ofMillis(200)).forEach(read::add);
        }
      }
      assertThat(read).isNotEmpty();
      ConsumerRecord<String, String> r = read.get(0);
      assertThat(r.offset()).isEqualTo(httpOffset);
      assertThat(r.key()).isEqualTo("order-2");
      assertThat(r.value()).isEqualTo("from http");
      assertThat(r.timestamp()).isEqualTo(1_718_000_000_001L);
      assertThat(new String(r.headers().lastHeader("source").value(), StandardCharsets.UTF_8))
          .isEqualTo("http");
    }
  }
}
