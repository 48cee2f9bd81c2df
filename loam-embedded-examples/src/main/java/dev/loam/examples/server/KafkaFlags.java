package dev.loam.examples.server;

import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.ValueParser;
import dev.loam.cli.Values;
import dev.loam.kafka.KafkaGatewaySettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The Kafka listener's authentication flags, the same on {@code ./loam server} and {@code ./loam
 * node}: {@code --kafka-sasl-mechanisms}, {@code --kafka-reauth-interval} and {@code
 * --kafka-forward-ca} (docs/reference/kafka.md "Authentication", docs/security.md).
 */
final class KafkaFlags {
  private KafkaFlags() {}

  /**
   * What the flags say.
   *
   * @param mechanisms the SASL mechanisms offered
   * @param reauthInterval the longest a SASL session lasts, zero for no limit
   * @param forwardCa the CA other nodes' TLS Kafka listeners are checked against when topic admin
   *     is forwarded to a stream's owner; empty: {@code --tls-client-ca}, else the JVM's trust
   *     store
   */
  record Security(Set<String> mechanisms, Duration reauthInterval, Optional<Path> forwardCa) {
    /** Sets these values on a gateway's settings. */
    void applyTo(KafkaGatewaySettings.Builder b) {
      b.saslMechanisms(mechanisms).reauthInterval(reauthInterval);
      forwardCa.ifPresent(b::forwardingTrust);
    }
  }

  /** The flags as declared on one command. */
  record Declared(Flag<Set<String>> mechanisms, Flag<Duration> reauth, Flag<Path> forwardCa) {
    Security get(ParsedArgs a) {
      return new Security(a.get(mechanisms), a.get(reauth), Optional.ofNullable(a.get(forwardCa)));
    }
  }

  /** Declares the flags on {@code cmd}, at this point of its help. */
  static Declared declare(Command cmd) {
    return new Declared(
        cmd.flag(
            "--kafka-sasl-mechanisms",
            "LIST|none",
            KafkaFlags::saslMechanisms,
            Set.copyOf(KafkaGatewaySettings.SASL_MECHANISMS),
            "SASL mechanisms of the Kafka listener, the API key id as user name"
                + " (docs/reference/kafka.md)"),
        cmd.flag(
            "--kafka-reauth-interval",
            "DURATION|off",
            reauthInterval(),
            Duration.ZERO,
            "longest SASL session before the client must re-authenticate on its connection"
                + " (Kafka's connections.max.reauth.ms; at least 1s)"),
        cmd.optional(
            "--kafka-forward-ca",
            "FILE",
            TlsFlags.certificates("forwarding CA"),
            "--tls-client-ca, else the JVM's",
            "PEM CA certificates other nodes' TLS Kafka listeners are checked against when topic"
                + " admin is forwarded to a stream's owner"));
  }

  /** {@code off} or {@code 0}: no limit; else a duration of at least one second. */
  static ValueParser<Duration> reauthInterval() {
    ValueParser<Duration> duration = Values.duration();
    return t -> {
      String s = t.strip().toLowerCase(Locale.ROOT);
      if (s.equals("off") || s.equals("0")) {
        return Duration.ZERO;
      }
      Duration d = duration.parse(t);
      if (d.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException(
            "the re-authentication interval must be at least 1s (or off): " + t);
      }
      return d;
    };
  }

  /** A comma-separated list of {@link KafkaGatewaySettings#SASL_MECHANISMS}, or {@code none}. */
  static Set<String> saslMechanisms(String text) {
    if (text.trim().equals("none")) {
      return Set.of();
    }
    Set<String> out = new LinkedHashSet<>();
    for (String m : text.split(",", -1)) {
      String t = m.trim().toUpperCase(Locale.ROOT);
      if (!KafkaGatewaySettings.SASL_MECHANISMS.contains(t)) {
        throw new IllegalArgumentException(
            "unknown SASL mechanism ("
                + String.join(", ", KafkaGatewaySettings.SASL_MECHANISMS)
                + ", or none) mechanism="
                + m.trim());
      }
      out.add(t);
    }
    return out;
  }
}
