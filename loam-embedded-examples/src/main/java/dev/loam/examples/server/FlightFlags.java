package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.flight.LoamFlightServer;
import dev.loam.http.Authentication;

/**
 * The Arrow Flight flag of {@code loam server} (docs/reference/arrow.md "Arrow Flight"): {@code
 * --flight-port N|off}. Without the flag the listener serves on {@value #DEFAULT_PORT}, Arrow
 * Flight's customary port, unless TLS is configured: the Flight listener has no TLS yet, so with
 * {@code --tls-cert} it stays off, and asking for it is a usage error.
 */
final class FlightFlags {
  /** The port {@code loam server} serves Flight on when the flag is absent. */
  static final int DEFAULT_PORT = 8815;

  private FlightFlags() {}

  /** {@code loam server}'s flag. */
  static Flag<Integer> server(Command cmd) {
    return cmd.optional(
        "--flight-port",
        "N|off",
        Values.portOrOff(),
        DEFAULT_PORT + " (off with --tls-cert)",
        "the Arrow Flight port on --host for arrow streams (docs/reference/arrow.md; 0 = any free"
            + " one)");
  }

  /**
   * The port of a parsed command line, -1 when off.
   *
   * @throws UsageException when a port is asked for together with TLS
   */
  static int port(ParsedArgs a, Flag<Integer> flag, boolean tls, String[] args) {
    boolean given = false;
    for (String s : args) {
      if (s.equals("--flight-port") || s.startsWith("--flight-port=")) {
        given = true;
      }
    }
    Integer p = a.get(flag);
    if (!given) {
      return tls ? -1 : DEFAULT_PORT;
    }
    int port = p == null ? -1 : p;
    if (port >= 0 && tls) {
      throw new UsageException(
          "--flight-port",
          "the Arrow Flight listener has no TLS yet; use --flight-port off with --tls-cert");
    }
    return port;
  }

  /** Starts the Flight listener; null when the port is off. */
  static LoamFlightServer start(
      LoamNode node, String host, int port, Authentication authentication) {
    if (port < 0) {
      return null;
    }
    return StartFailure.step(
        "--flight-port " + port,
        host + ":" + port,
        () ->
            LoamFlightServer.builder()
                .node(node)
                .host(host)
                .port(port)
                .authentication(authentication)
                .start());
  }

  /** {@code " flight=host:port"} for the start line; empty when off. */
  static String describe(LoamFlightServer s, String host) {
    return s == null ? "" : " flight=" + host + ":" + s.port();
  }
}
