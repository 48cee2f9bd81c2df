package dev.loam.kafka;

import dev.loam.api.ApiKeySpec;
import dev.loam.api.CreatedApiKey;
import dev.loam.api.LoamNode;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * Kafka client settings for SASL with a Loam API key: the key id as user name, secret as password.
 */
final class SaslClients {
  private SaslClients() {}

  static final String[] MECHANISMS = {"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"};

  /** Creates a key on {@code node}; the secret is recorded for the suite's secret scan. */
  static CreatedApiKey key(LoamNode node, ApiKeySpec spec) throws Exception {
    CreatedApiKey k = node.log().createApiKey(spec).get(30, TimeUnit.SECONDS);
    dev.loam.tls.UsedSecrets.record(k.secret());
    return k;
  }

  /** SASL_PLAINTEXT with {@code mechanism} as user {@code id} with password {@code secret}. */
  static Map<String, Object> sasl(String mechanism, String id, String secret) {
    Map<String, Object> p = new HashMap<>();
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    p.put(SaslConfigs.SASL_MECHANISM, mechanism);
    String module =
        mechanism.equals("PLAIN")
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    p.put(
        SaslConfigs.SASL_JAAS_CONFIG,
        module + " required username=\"" + id + "\" password=\"" + secret + "\";");
    return p;
  }

  /** As {@link #sasl}, over TLS trusting the PEM CA certificate {@code caPem}: SASL_SSL. */
  static Map<String, Object> saslSsl(
      String mechanism, String id, String secret, java.nio.file.Path caPem) {
    Map<String, Object> p = sasl(mechanism, id, secret);
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
    p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, caPem.toString());
    return p;
  }

  /** {@link #sasl} for a created key. */
  static Map<String, Object> sasl(String mechanism, CreatedApiKey k) {
    return sasl(mechanism, k.key().id(), k.secret());
  }
}
