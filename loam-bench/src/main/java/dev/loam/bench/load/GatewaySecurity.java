package dev.loam.bench.load;

import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * How {@code --transport kafka} secures its gateways, to measure what TLS and SASL cost on the
 * produce path ({@code --kafka-tls-*}, {@code --kafka-sasl}): TLS from PEM files, with the CA the
 * bench's clients trust; SASL with one mechanism, on a cluster-wide key the run creates. Neither:
 * the plaintext, unauthenticated gateway of every other run.
 *
 * @param tls the gateways' certificate and key, empty for plaintext
 * @param trustedCa the PEM CA certificate the clients trust (with {@code tls})
 * @param saslMechanism PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512; null for no SASL
 */
record GatewaySecurity(Optional<TlsSettings> tls, Path trustedCa, String saslMechanism) {
  /** Plaintext, no authentication. */
  static final GatewaySecurity NONE = new GatewaySecurity(Optional.empty(), null, null);

  /**
   * For the report: {@code plaintext}, {@code tls}, {@code sasl-SCRAM-SHA-256}, {@code
   * tls+sasl-PLAIN}.
   */
  String describe() {
    if (tls.isEmpty() && saslMechanism == null) {
      return "plaintext";
    }
    return (tls.isPresent() ? "tls" : "")
        + (tls.isPresent() && saslMechanism != null ? "+" : "")
        + (saslMechanism != null ? "sasl-" + saslMechanism : "");
  }

  /** The Kafka client settings for these gateways, with the key {@code id}:{@code secret}. */
  Map<String, Object> clientSettings(String id, String secret) {
    Map<String, Object> p = new HashMap<>();
    if (tls.isEmpty() && saslMechanism == null) {
      return p;
    }
    p.put(
        "security.protocol",
        (saslMechanism != null ? "SASL_" : "") + (tls.isPresent() ? "SSL" : "PLAINTEXT"));
    if (tls.isPresent()) {
      p.put("ssl.truststore.type", "PEM");
      p.put("ssl.truststore.location", trustedCa.toString());
    }
    if (saslMechanism != null) {
      String module =
          saslMechanism.equals("PLAIN")
              ? "org.apache.kafka.common.security.plain.PlainLoginModule"
              : "org.apache.kafka.common.security.scram.ScramLoginModule";
      p.put("sasl.mechanism", saslMechanism);
      p.put(
          "sasl.jaas.config",
          module + " required username=\"" + id + "\" password=\"" + secret + "\";");
    }
    return p;
  }
}
