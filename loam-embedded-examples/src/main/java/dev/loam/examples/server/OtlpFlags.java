package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.Values;
import dev.loam.error.LoamException;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.otlp.OtlpReceiver;
import dev.loam.otlp.OtlpSettings;
import dev.loam.tls.TlsSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The OTLP logs flags of {@code loam server} and {@code loam node} (docs/reference/otlp.md): {@code
 * --otlp-http-port} and {@code --otlp-grpc-port}. {@code loam server} serves both on the OTLP
 * default ports unless {@code off}, so an SDK with no endpoint configured reaches a local server;
 * {@code loam node} serves them only when given, as its Kafka port.
 */
final class OtlpFlags {
  private OtlpFlags() {}

  /** The two ports, -1 for a listener that is off, and the streams' key attributes. */
  record Ports(int http, int grpc, Map<String, String> keyAttributes) {
    static final Ports OFF = new Ports(-1, -1);

    Ports(int http, int grpc) {
      this(http, grpc, Map.of());
    }

    Ports {
      keyAttributes = Map.copyOf(keyAttributes);
    }
  }

  /** The port flags and the key-attribute flag of a command. */
  record Listener(Flag<Integer> http, Flag<Integer> grpc, Flag<Map<String, String>> keys) {
    /** Both ports and the key attributes of a parsed command line. */
    Ports ports(ParsedArgs a) {
      Map<String, String> k = a.get(keys);
      return new Ports(httpPort(a), grpcPort(a), k == null ? Map.of() : k);
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
            "the OTLP/gRPC logs port on --host, LogsService/Export (docs/reference/otlp.md)"),
        keyAttributes(cmd));
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
            "the OTLP/gRPC logs port on --host, LogsService/Export (docs/reference/otlp.md)"),
        keyAttributes(cmd));
  }

  private static Flag<Map<String, String>> keyAttributes(Command cmd) {
    return cmd.optional(
        "--otlp-key-attribute",
        "STREAM=ATTR[,...]",
        OtlpFlags::parseKeyAttributes,
        "none (round-robin)",
        "key OTLP records of STREAM on the attribute ATTR, e.g. otel_logs=service.name");
  }

  /** {@code stream=attribute} pairs separated by commas, each checked as the settings check it. */
  static Map<String, String> parseKeyAttributes(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : text.split(",", -1)) {
      int eq = pair.indexOf('=');
      if (eq <= 0 || eq == pair.length() - 1) {
        throw new IllegalArgumentException(
            "expected STREAM=ATTRIBUTE pairs separated by commas, got '" + pair + "'");
      }
      String stream = pair.substring(0, eq).strip();
      String attribute = pair.substring(eq + 1).strip();
      if (out.put(stream, attribute) != null) {
        throw new IllegalArgumentException("stream " + stream + " is named twice");
      }
      try {
        OtlpSettings.builder().keyAttribute(stream, attribute).build();
      } catch (LoamException e) {
        throw new IllegalArgumentException(e.getMessage());
      }
    }
    return out;
  }

  /**
   * Starts the OTLP receiver on {@code host} with the HTTP listener's authentication, quota and
   * TLS; null when both ports are off. A port that cannot be bound fails like every start step: one
   * line naming the flag.
   */
  static OtlpReceiver start(
      LoamNode node,
      String host,
      Ports ports,
      Authentication authentication,
      IngestQuota quota,
      Optional<TlsSettings> tls) {
    int httpPort = ports.http();
    int grpcPort = ports.grpc();
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
    ports.keyAttributes().forEach(b::keyAttribute);
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
