package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.error.LoamException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Defaults follow Kafka's; every bad value is refused naming it. */
class KafkaGatewaySettingsTest {
  @Test
  void defaultsAreKafkasWhereKafkaHasOne() {
    KafkaGatewaySettings s = KafkaGatewaySettings.defaults();
    assertThat(s.port()).isEqualTo(9092);
    assertThat(s.namespace()).isEqualTo("default");
    assertThat(s.autoCreateTopics()).isTrue();
    assertThat(s.defaultPartitions()).isEqualTo(1);
    assertThat(s.maxRequestBytes()).isEqualTo(100 * 1024 * 1024);
    assertThat(s.effectiveAdvertisedHost()).isEqualTo("127.0.0.1");
    assertThat(KafkaGatewaySettings.builder().host("0.0.0.0").build().effectiveAdvertisedHost())
        .isEqualTo("127.0.0.1");
    assertThat(
            KafkaGatewaySettings.builder()
                .host("0.0.0.0")
                .advertisedHost("kafka.example")
                .build()
                .effectiveAdvertisedHost())
        .isEqualTo("kafka.example");
  }

  @Test
  void badValuesAreRefusedNamingThem() {
    assertInvalid(KafkaGatewaySettings.builder().port(70000), "port=70000");
    assertInvalid(KafkaGatewaySettings.builder().host(" "), "host");
    assertInvalid(KafkaGatewaySettings.builder().namespace(""), "namespace");
    assertInvalid(KafkaGatewaySettings.builder().defaultPartitions(0), "defaultPartitions=0");
    assertInvalid(KafkaGatewaySettings.builder().maxRequestBytes(10), "maxRequestBytes=10");
    assertInvalid(
        KafkaGatewaySettings.builder().maxInFlightPerConnection(0), "maxInFlightPerConnection=0");
    assertInvalid(
        KafkaGatewaySettings.builder().maxFetchWait(Duration.ofHours(1)), "maxFetchWait=PT1H");
    assertInvalid(KafkaGatewaySettings.builder().ioThreads(0), "ioThreads=0");
  }

  private static void assertInvalid(KafkaGatewaySettings.Builder b, String names) {
    assertThatThrownBy(b::build)
        .isInstanceOf(LoamException.class)
        .hasMessageContaining(names)
        .matches(e -> ((LoamException) e).kind() == LoamException.Kind.INVALID);
  }
}
