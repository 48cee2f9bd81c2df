package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.Values;
import dev.loam.grpc.GrpcSettings;
import dev.loam.grpc.LoamGrpcServer;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.tls.TlsSettings;
import java.time.Duration;
import java.util.Optional;

/**
 * The gRPC API flag of {@code loam server} and {@code loam node} (docs/reference/grpc.md): {@code
 * --grpc-port}. {@code loam server} serves it on {@value GrpcSettings#DEFAULT_PORT} unless {@code
 * off}, so a local client needs no configuration; {@code loam node} serves it only when given, as
 * its Kafka and OTLP ports.
 */
final class GrpcFlags {
  private GrpcFlags() {}

  /** {@code loam server}'s flag: on by default, {@code off} disables. */
  static Flag<Integer> server(Command cmd) {
    return cmd.flag(
        "--grpc-port",
        "N|off",
        Values.portOrOff(),
        GrpcSettings.DEFAULT_PORT,
        "the gRPC API port on --host, loam.v1 (docs/reference/grpc.md; 0 = any free one)");
  }

  /** {@code loam node}'s flag: off unless given. */
  static Flag<Integer> node(Command cmd) {
    return cmd.optional(
        "--grpc-port",
        "N",
        Values.port(true),
        "off",
        "the gRPC API port on --host, loam.v1 (docs/reference/grpc.md)");
  }

  /** The port of a parsed command line, -1 when off. */
  static int port(ParsedArgs a, Flag<Integer> flag) {
    Integer p = a.get(flag);
    return p == null ? -1 : p;
  }

  /**
   * Starts the gRPC server on {@code host} with the HTTP listener's authentication, quota and TLS,
   * and the CloudEvents dedup window of its {@code CloudEventsService}; null when the port is off.
   * A port that cannot be bound fails like every start step: one line naming the flag.
   */
  static LoamGrpcServer start(
      LoamNode node,
      String host,
      int port,
      Authentication authentication,
      IngestQuota quota,
      Optional<TlsSettings> tls,
      Duration cloudEventsDedupWindow) {
    if (port < 0) {
      return null;
    }
    GrpcSettings.Builder b =
        GrpcSettings.builder()
            .host(host)
            .port(port)
            .authentication(authentication)
            .ingestQuota(quota)
            .cloudEventsDedupWindow(cloudEventsDedupWindow);
    tls.ifPresent(b::tls);
    GrpcSettings settings = b.build();
    return StartFailure.step(
        "--grpc-port " + port, host + ":" + port, () -> LoamGrpcServer.start(node, settings));
  }

  /** {@code " grpc=host:port"} for the start line; empty when off. */
  static String describe(LoamGrpcServer s, String host) {
    return s == null ? "" : " grpc=" + host + ":" + s.port();
  }
}
