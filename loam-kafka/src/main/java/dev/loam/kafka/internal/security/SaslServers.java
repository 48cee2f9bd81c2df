package dev.loam.kafka.internal.security;

import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The SASL servers of kafka-clients, the same code a Kafka broker runs: {@link PlainSaslServer}
 * (RFC 4616) and {@link ScramSaslServer} (RFC 5802, SHA-256 and SHA-512). They need no broker
 * class; their callbacks come from {@link SaslCallbacks}.
 */
final class SaslServers {
  private SaslServers() {}

  static SaslServer create(String mechanism, SaslCallbacks callbacks) {
    if (PlainSaslServer.PLAIN_MECHANISM.equals(mechanism)) {
      return new PlainSaslServer(callbacks);
    }
    ScramMechanism scram = ScramMechanism.forMechanismName(mechanism);
    if (scram == null) {
      throw new IllegalArgumentException("no SASL server for mechanism=" + mechanism);
    }
    return new ScramServer(scram, callbacks::scramCredential);
  }
}
