package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Loam does not support fails fast with a message saying so, never a hang: transactions (a
 * transactional producer's initTransactions) and share groups.
 */
class UnsupportedGroupFeaturesIT {
  @TempDir Path dir;
  KafkaTestSupport k;

  @BeforeEach
  void start() {
    k = new KafkaTestSupport(dir);
  }

  @AfterEach
  void stop() {
    k.close();
  }

  @Test
  void aTransactionalProducerFailsAtInitTransactionsSayingTransactionsAreUnsupported() {
    long start = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> p =
        k.producer(
            Map.of(
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "tx-1",
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                30_000))) {
      assertThatThrownBy(p::initTransactions)
          .isInstanceOf(KafkaException.class)
          .hasMessageContaining("Kafka transactions are not supported by Loam");
    }
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
  }

  @Test
  void theTransactionApisAreAbsentAndTheirEntryPointsRefuse() throws Exception {
    try (RawKafkaClient raw = new RawKafkaClient(k.gateway.port())) {
      ApiVersionsResponse v = raw.call(new ApiVersionsRequest.Builder().build((short) 3));
      for (ApiKeys absent :
          List.of(
              ApiKeys.ADD_PARTITIONS_TO_TXN,
              ApiKeys.ADD_OFFSETS_TO_TXN,
              ApiKeys.END_TXN,
              ApiKeys.TXN_OFFSET_COMMIT,
              ApiKeys.SHARE_GROUP_HEARTBEAT,
              ApiKeys.SHARE_FETCH)) {
        assertThat(v.data().apiKeys().find(absent.id)).as("%s", absent).isNull();
      }
      InitProducerIdResponse init =
          raw.call(
              new InitProducerIdRequest.Builder(
                      new InitProducerIdRequestData()
                          .setTransactionalId("tx-1")
                          .setTransactionTimeoutMs(60_000))
                  .build((short) 4));
      assertThat(init.data().errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
      for (byte keyType : new byte[] {1, 2}) {
        FindCoordinatorResponse f =
            raw.call(
                new FindCoordinatorRequest.Builder(
                        new FindCoordinatorRequestData()
                            .setKeyType(keyType)
                            .setCoordinatorKeys(List.of("k")))
                    .build((short) 6));
        assertThat(f.data().coordinators().get(0).errorCode())
            .isEqualTo(Errors.INVALID_REQUEST.code());
        assertThat(f.data().coordinators().get(0).errorMessage()).contains("not supported by Loam");
      }
    }
  }
}
