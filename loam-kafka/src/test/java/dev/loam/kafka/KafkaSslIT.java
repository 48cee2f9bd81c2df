package dev.loam.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.loam.tls.TestPki;
import dev.loam.tls.TlsSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener with TLS serves the {@code SSL} security protocol: the Java client with a PEM
 * truststore produces and consumes; with a client CA set, a client without a certificate (or with
 * one of another CA) fails with an SSL authentication error.
 */
class KafkaSslIT {
  @TempDir static Path pkiDir;
  static TestPki ca;
  static TestPki.Issued server;
  static TestPki.Issued client;
  static TestPki.Issued stranger;

  @TempDir Path dir;

  @BeforeAll
  static void pki() {
    ca = TestPki.create(pkiDir, "kafka");
    server = ca.issue("server");
    client = ca.issue("client");
    stranger = TestPki.create(pkiDir, "other").issue("client");
  }

  /** security.protocol=SSL trusting the test CA, with a PEM client certificate if given. */
  static Map<String, Object> ssl(TestPki.Issued clientCertificate) throws Exception {
    Map<String, Object> p = new HashMap<>();
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
    p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.caCertificate().toString());
    if (clientCertificate != null) {
      p.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PEM");
      p.put(
          SslConfigs.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG,
          Files.readString(clientCertificate.certificate(), StandardCharsets.US_ASCII));
      p.put(
          SslConfigs.SSL_KEYSTORE_KEY_CONFIG,
          Files.readString(clientCertificate.privateKey(), StandardCharsets.US_ASCII));
    }
    return p;
  }

  static KafkaConsumer<byte[], byte[]> consumer(String bootstrap, Map<String, Object> ssl) {
    Map<String, Object> p = new HashMap<>(ssl);
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 200);
    return new KafkaConsumer<>(p);
  }

  static Admin admin(String bootstrap, Map<String, Object> ssl) {
    Map<String, Object> p = new HashMap<>(ssl);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
    return Admin.create(p);
  }

  @Test
  void theJavaClientProducesAndConsumesOverSsl() throws Exception {
    try (KafkaTestSupport k =
        new KafkaTestSupport(dir, KafkaTestSupport.FAST, b -> b.tls(server.settings()))) {
      Map<String, Object> ssl = ssl(null);
      try (KafkaProducer<byte[], byte[]> producer = k.producer(ssl)) {
        for (int i = 0; i < 10; i++) {
          producer
              .send(new ProducerRecord<>("secure", ("v" + i).getBytes(StandardCharsets.UTF_8)))
              .get(20, TimeUnit.SECONDS);
        }
      }
      try (KafkaConsumer<byte[], byte[]> consumer = consumer(k.bootstrap, ssl)) {
        consumer.assign(List.of(KafkaTestSupport.tp("secure", 0)));
        List<ConsumerRecord<byte[], byte[]>> got = KafkaTestSupport.pollFor(consumer, 10);
        assertThat(got)
            .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
            .containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
      }
      // A plaintext client gets no answer it can use.
      try (Admin plain =
          admin(k.bootstrap, Map.of(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
        assertThatThrownBy(() -> plain.listTopics().names().get(10, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class);
      }
    }
  }

  @Test
  void aClientCertificateIsRequiredWhenAClientCaIsSet() throws Exception {
    TlsSettings tls = server.settings().withClientCa(ca.caCertificate());
    try (KafkaTestSupport k = new KafkaTestSupport(dir, KafkaTestSupport.FAST, b -> b.tls(tls))) {
      try (Admin withCert = admin(k.bootstrap, ssl(client))) {
        withCert
            .createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic("t", 1, (short) 1)))
            .all()
            .get(20, TimeUnit.SECONDS);
        assertThat(withCert.listTopics().names().get(20, TimeUnit.SECONDS)).contains("t");
      }
      for (TestPki.Issued refused : new TestPki.Issued[] {null, stranger}) {
        try (Admin admin = admin(k.bootstrap, ssl(refused))) {
          assertThatThrownBy(() -> admin.listTopics().names().get(20, TimeUnit.SECONDS))
              .isInstanceOf(ExecutionException.class)
              .hasCauseInstanceOf(SslAuthenticationException.class);
        }
      }
    }
  }
}
