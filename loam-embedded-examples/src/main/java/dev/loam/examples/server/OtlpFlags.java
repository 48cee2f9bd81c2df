package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.Values;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.otlp.OtlpReceiver;
import dev.loam.otlp.OtlpSettings;
import dev.loam.tls.TlsSettings;
import java.util.Optional;

/**
 * The OTLP logs flags of {@code loam server} and {@code loam node} (docs/reference/otlp.md): {@code
 * --otlp-http-port} and {@code --otlp-grpc-port}. {@code loam server} serves both on the OTLP
 * default ports unless {@code off}, so an SDK with no endpoint configured reaches a local server;
 * {@code loam node} serves them only when given, as its Kafka port.
 */
final class OtlpFlags {
  private OtlpFlags() {}

  /** The two ports, -1 for a listener that is off. */
  record Ports(int http, int grpc) {
    static final Ports OFF = new Ports(-1, -1);
  }

  /** The two port flags of a command. */
  record Listener(Flag<Integer> http, Flag<Integer> grpc) {
    /** Both ports of a parsed command line. */
    Ports ports(ParsedArgs a) {
      return new Ports(httpPort(a), grpcPort(a));
    }

    /** The OTLP/HTTP port, -1 when off. */
    int httpPort(ParsedArgs a) {
      Integer p = a.get(http);
      return p == null ? -1 : p;
    }

    /** The OTLP/gRPC port, -1 when off. */
    int grpcPort(ParsedArgs a) {
      Integer p = a.get(grpc);
      return p == null ? -1 : p;
    }
  }

  /** {@code loam server}'s flags: on by default at 4318 and 4317, {@code off} disables. */
  static Listener server(Command cmd) {
    return new Listener(
        cmd.flag(
            "--otlp-http-port",
            "N|off",
            Values.portOrOff(),
            OtlpSettings.DEFAULT_HTTP_PORT,
            "the OTLP/HTTP logs port on --host, POST /v1/logs (docs/reference/otlp.md)"),
        cmd.flag(
            "--otlp-grpc-port",
            "N|off",
            Values.portOrOff(),
            OtlpSettings.DEFAULT_GRPC_PORT,
            "the OTLP/gRPC logs port on --host, LogsService/Export (docs/reference/otlp.md)"));
  }

  /** {@code loam node}'s flags: off unless given. */
  static Listener node(Command cmd) {
    return new Listener(
        cmd.optional(
            "--otlp-http-port",
            "N",
            Values.port(true),
            "off",
            "the OTLP/HTTP logs port on --host, POST /v1/logs (docs/reference/otlp.md)"),
        cmd.optional(
            "--otlp-grpc-port",
            "N",
            Values.port(true),
            "off",
            "the OTLP/gRPC logs port on --host, LogsService/Export (docs/reference/otlp.md)"));
  }

  /**
   * Starts the OTLP receiver on {@code host} with the HTTP listener's authentication, quota and
   * TLS; null when both ports are off. A port that cannot be bound fails like every start step: one
   * line naming the flag.
   */
  static OtlpReceiver start(
      LoamNode node,
      String host,
      int httpPort,
      int grpcPort,
      Authentication authentication,
      IngestQuota quota,
      Optional<TlsSettings> tls) {
    if (httpPort < 0 && grpcPort < 0) {
      return null;
    }
    OtlpSettings.Builder b =
        OtlpSettings.builder()
            .host(host)
            .httpPort(httpPort < 0 ? OtlpSettings.OFF : httpPort)
            .grpcPort(grpcPort < 0 ? OtlpSettings.OFF : grpcPort)
            .authentication(authentication)
            .ingestQuota(quota);
    tls.ifPresent(b::tls);
    OtlpSettings settings = b.build();
    String flag =
        (httpPort >= 0 ? "--otlp-http-port " + httpPort : "")
            + (httpPort >= 0 && grpcPort >= 0 ? " or " : "")
            + (grpcPort >= 0 ? "--otlp-grpc-port " + grpcPort : "");
    return StartFailure.step(
        flag,
        host + ":" + (httpPort >= 0 ? httpPort : grpcPort),
        () -> OtlpReceiver.start(node, settings));
  }

  /** {@code " otlp-http=host:port otlp-grpc=host:port"} for the start line; empty when off. */
  static String describe(OtlpReceiver r, String host) {
    if (r == null) {
      return "";
    }
    return (r.httpPort() >= 0 ? " otlp-http=" + host + ":" + r.httpPort() : "")
        + (r.grpcPort() >= 0 ? " otlp-grpc=" + host + ":" + r.grpcPort() : "");
  }
}
