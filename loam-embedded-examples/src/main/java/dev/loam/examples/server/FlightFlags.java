package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.Values;
import dev.loam.flight.LoamFlightServer;
import dev.loam.http.Authentication;
import dev.loam.tls.TlsSettings;
import java.util.Optional;

/**
 * The Arrow Flight flag of {@code loam server} and {@code loam node} (docs/reference/arrow.md
 * "Arrow Flight"): {@code --flight-port}. {@code loam server} serves it on {@value #DEFAULT_PORT},
 * Arrow Flight's customary port, unless {@code off}; {@code loam node} serves it only when given,
 * as its gRPC, Kafka and OTLP ports. With {@code --tls-cert} the listener speaks TLS only, with the
 * other listeners' certificate (and client CA).
 */
final class FlightFlags {
  /** The port {@code loam server} serves Flight on when the flag is absent. */
  static final int DEFAULT_PORT = 8815;

  private FlightFlags() {}

  /** {@code loam server}'s flag: on by default, {@code off} disables. */
  static Flag<Integer> server(Command cmd) {
    return cmd.flag(
        "--flight-port",
        "N|off",
        Values.portOrOff(),
        DEFAULT_PORT,
        "the Arrow Flight port on --host for arrow streams (docs/reference/arrow.md; 0 = any free"
            + " one)");
  }

  /** {@code loam node}'s flag: off unless given. */
  static Flag<Integer> node(Command cmd) {
    return cmd.optional(
        "--flight-port",
        "N",
        Values.port(true),
        "off",
        "the Arrow Flight port on --host for arrow streams (docs/reference/arrow.md)");
  }

  /** The port of a parsed command line, -1 when off. */
  static int port(ParsedArgs a, Flag<Integer> flag) {
    Integer p = a.get(flag);
    return p == null ? -1 : p;
  }

  /**
   * Starts the Flight listener with the HTTP listener's authentication and TLS; null when the port
   * is off.
   */
  static LoamFlightServer start(
      LoamNode node,
      String host,
      int port,
      Authentication authentication,
      Optional<TlsSettings> tls) {
    if (port < 0) {
      return null;
    }
    return StartFailure.step(
        "--flight-port " + port,
        host + ":" + port,
        () -> {
          LoamFlightServer.Builder b =
              LoamFlightServer.builder()
                  .node(node)
                  .host(host)
                  .port(port)
                  .authentication(authentication);
          tls.ifPresent(b::tls);
          return b.start();
        });
  }

  /** {@code " flight=host:port"} for the start line; empty when off. */
  static String describe(LoamFlightServer s, String host) {
    return s == null ? "" : " flight=" + host + ":" + s.port();
  }
}
