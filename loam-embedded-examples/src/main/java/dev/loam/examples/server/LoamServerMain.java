package dev.loam.examples.server;

import dev.loam.api.LoamNode;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.StoreUris;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.grpc.LoamGrpcServer;
import dev.loam.http.Authentication;
import dev.loam.http.IngestQuota;
import dev.loam.http.LoamHttpServer;
import dev.loam.kafka.KafkaGateway;
import dev.loam.kafka.KafkaGatewaySettings;
import dev.loam.otlp.OtlpReceiver;
import dev.loam.tls.TlsSettings;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * {@code loam server}: starts a node on the embedded default (a data directory) and serves its HTTP
 * API until SIGTERM or Ctrl-C, then stops cleanly: stops accepting, lets in-flight produce requests
 * finish, flushes the node (every pending append is acknowledged or failed), and exits.
 *
 * <pre>
 * java -cp 'loam-embedded-examples/target/classes:loam-embedded-examples/target/lib/*' \
 *     dev.loam.examples.server.LoamServerMain \
 *     [--data-dir DIR] [--port 8080] [--host 127.0.0.1] [--node-id node-1] [--store URI] \
 *     [--ingest-quota-bytes-per-sec N [--ingest-quota-burst-bytes B]]
 *     [--cloudevents-dedup-window SECONDS]
 * </pre>
 *
 * <p>{@code --ingest-quota-bytes-per-sec} limits every namespace's produce bytes on this node (not
 * cluster-wide); the burst defaults to one second's worth. Off by default.
 */
public final class LoamServerMain {
  private LoamServerMain() {}

  /** The flags of {@code loam server}, in the order of its help. */
  public static final Command CMD =
      new Command(
          "loam server",
          "Serves the native HTTP API (docs/reference/http-api.md) of one node on the embedded\n"
              + "default (a data directory with its single-node metastore) until SIGTERM or Ctrl-C.");

  static final Flag<Path> DATA_DIR =
      CMD.flag("--data-dir", "DIR", Values.path(), Path.of("loam-data"), "the node's directory");
  static final Flag<Integer> PORT =
      CMD.flag(
          "--port|--http-port", "N", Values.port(true), 8080, "the HTTP port (0 = any free one)");
  static final Flag<String> HOST =
      CMD.flag(
          "--host",
          "H",
          Values.nonBlank(),
          "127.0.0.1",
          "the HTTP bind address; 0.0.0.0 binds every interface");
  static final Flag<Boolean> INSECURE =
      CMD.toggle(
          "--insecure",
          "serve a non-loopback --host without API keys until the first key exists (warns)");
  static final Flag<Integer> KAFKA_PORT =
      CMD.flag(
          "--kafka-port",
          "N|off",
          Values.portOrOff(),
          9092,
          "the Kafka protocol port on --host (docs/reference/kafka.md; 0 = any free one)");
  static final OtlpFlags.Listener OTLP = OtlpFlags.server(CMD);
  static final Flag<Integer> GRPC = GrpcFlags.server(CMD);
  static final Flag<Integer> FLIGHT = FlightFlags.server(CMD);
  static final Flag<String> NODE_ID =
      CMD.flag("--node-id", "ID", Values.nonBlank(), "node-1", "the node's id");
  static final Flag<String> STORE =
      CMD.optional(
          "--store",
          "URI",
          StoreUris.parser(false),
          "DIR/objects",
          "where the objects live: mem://, file:///dir, s3://, azblob://, gs://");
  static final Flag<Long> QUOTA_RATE =
      CMD.optional(
          "--ingest-quota-bytes-per-sec",
          "N",
          Values.longValue(1, Long.MAX_VALUE),
          "unlimited",
          "produce bytes per second per namespace on this node (not cluster-wide)");
  static final Flag<Long> QUOTA_BURST =
      CMD.optional(
          "--ingest-quota-burst-bytes",
          "B",
          Values.longValue(1, Long.MAX_VALUE),
          "one second's worth",
          "the quota's burst; needs --ingest-quota-bytes-per-sec");

  static final Flag<Long> DEDUP_WINDOW =
      CMD.optional(
          "--cloudevents-dedup-window",
          "SECONDS",
          Values.longValue(1, 86_400),
          "3600",
          "how long CloudEvents ingest answers a retried source + id as a duplicate (at most 24 h)");

  static final TlsFlags.Listener TLS = TlsFlags.listener(CMD);

  static final KafkaFlags.Declared KAFKA_SECURITY = KafkaFlags.declare(CMD);

  static final KmsFlags.Options KMS = KmsFlags.declare(CMD);

  /** The parsed command line. */
  record Options(
      Path dataDir,
      int port,
      int kafkaPort,
      String host,
      String nodeId,
      String store,
      IngestQuota quota,
      Optional<TlsSettings> tls,
      boolean insecure,
      KafkaFlags.Security kafkaSecurity,
      java.time.Duration dedupWindow,
      Optional<KmsFlags.Settings> kms) {}

  /** Parses and validates the command line; a {@link UsageException} names the flag at fault. */
  static Options parse(String[] args) {
    ParsedArgs a = CMD.parse(args);
    Long rate = a.get(QUOTA_RATE);
    Long burst = a.get(QUOTA_BURST);
    if (burst != null && rate == null) {
      throw new UsageException(QUOTA_BURST.name(), "needs --ingest-quota-bytes-per-sec");
    }
    IngestQuota quota =
        rate == null ? IngestQuota.unlimited() : IngestQuota.of(rate, burst != null ? burst : rate);
    return new Options(
        a.get(DATA_DIR),
        a.get(PORT),
        a.get(KAFKA_PORT),
        a.get(HOST),
        a.get(NODE_ID),
        a.get(STORE),
        quota,
        TLS.settings(a),
        a.get(INSECURE),
        KAFKA_SECURITY.get(a),
        java.time.Duration.ofSeconds(a.get(DEDUP_WINDOW) == null ? 3600 : a.get(DEDUP_WINDOW)),
        KMS.settings(a));
  }

  /**
   * Parses and validates a {@code loam server} command line as {@link #main} would, without
   * starting anything; a {@link UsageException} names the flag at fault.
   */
  public static void validate(String[] args) {
    if (!CMD.parse(args).help()) {
      parse(args);
    }
  }

  public static void main(String[] args) throws InterruptedException {
    Options o;
    try {
      if (CMD.parse(args).help()) {
        System.out.print(CMD.help());
        return;
      }
      o = parse(args);
    } catch (UsageException e) {
      CMD.printUsageError(e, System.err);
      System.exit(2);
      return;
    }
    LoamNode node;
    LoamHttpServer server;
    KafkaGateway kafka;
    OtlpReceiver otlp;
    LoamGrpcServer grpc;
    dev.loam.flight.LoamFlightServer flight;
    try {
      node = startNode(o);
      try {
        server =
            StartFailure.step(
                "--port " + o.port(),
                o.host() + ":" + o.port(),
                () ->
                    LoamServerMain.withTls(
                            LoamHttpServer.builder()
                                .node(node)
                                .host(o.host())
                                .port(o.port())
                                .ingestQuota(o.quota())
                                .cloudEventsDedupWindow(o.dedupWindow())
                                .authentication(authentication(o.host(), o.insecure())),
                            o.tls())
                        .start());
      } catch (RuntimeException e) {
        node.close();
        throw e;
      }
      try {
        kafka =
            o.kafkaPort() < 0
                ? null
                : startKafka(
                    node,
                    o.host(),
                    o.kafkaPort(),
                    null,
                    o.tls(),
                    authentication(o.host(), o.insecure()),
                    o.kafkaSecurity());
      } catch (RuntimeException e) {
        server.close();
        node.close();
        throw e;
      }
      try {
        ParsedArgs pa = CMD.parse(args);
        otlp =
            OtlpFlags.start(
                node, o.host(), OTLP.ports(pa), server.authentication(), o.quota(), o.tls());
      } catch (RuntimeException e) {
        if (kafka != null) {
          kafka.close();
        }
        server.close();
        node.close();
        throw e;
      }
      try {
        grpc =
            GrpcFlags.start(
                node,
                o.host(),
                GrpcFlags.port(CMD.parse(args), GRPC),
                server.authentication(),
                o.quota(),
                o.tls(),
                o.dedupWindow());
      } catch (RuntimeException e) {
        if (otlp != null) {
          otlp.close();
        }
        if (kafka != null) {
          kafka.close();
        }
        server.close();
        node.close();
        throw e;
      }
      try {
        flight =
            FlightFlags.start(
                node,
                o.host(),
                FlightFlags.port(CMD.parse(args), FLIGHT),
                server.authentication(),
                o.tls());
      } catch (RuntimeException e) {
        if (grpc != null) {
          grpc.close();
        }
        if (otlp != null) {
          otlp.close();
        }
        if (kafka != null) {
          kafka.close();
        }
        server.close();
        node.close();
        throw e;
      }
    } catch (Throwable e) {
      // One line naming the flag to change, then exit: nothing half-started keeps the JVM up.
      System.err.println("loam server: could not start: " + StartFailure.describe(e, null));
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("loam: stopping");
                  if (flight != null) {
                    try {
                      flight.close();
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                  if (grpc != null) {
                    grpc.close();
                  }
                  if (otlp != null) {
                    otlp.close();
                  }
                  if (kafka != null) {
                    kafka.close();
                  }
                  server.close();
                  node.close();
                  System.out.println("loam: stopped");
                  stopped.countDown();
                },
                "loam-shutdown"));
    printAuthentication(o.host(), o.insecure(), server.authentication());
    String url = (o.tls().isPresent() ? "https://" : "http://") + o.host() + ":" + server.port();
    System.out.println(
        "loam: node "
            + o.nodeId()
            + " serving "
            + url
            + " (data "
            + o.dataDir().toAbsolutePath()
            + ")"
            + (kafka == null ? "" : " kafka=" + kafka.advertisedAddress())
            + OtlpFlags.describe(otlp, o.host())
            + GrpcFlags.describe(grpc, o.host())
            + FlightFlags.describe(flight, o.host()));
    System.out.println(
        "loam: try  curl -s -X POST "
            + url
            + "/v1/namespaces/default/streams -H 'content-type: application/json'"
            + " -d '{\"name\":\"events\",\"partitions\":3}'");
    System.out.flush();
    stopped.await();
  }

  /**
   * The launchers' authentication rule (docs/security.md): on a loopback host the API is open until
   * the cluster's first key exists; on any other host it always needs a key, unless {@code
   * --insecure} asks for the loopback behaviour there too.
   */
  static Authentication authentication(String host, boolean insecure) {
    return insecure || LoamHttpServer.Builder.isLoopback(host)
        ? Authentication.WHEN_KEYS_EXIST
        : Authentication.REQUIRED;
  }

  /** One line saying when requests need a key, and the warning {@code --insecure} earns. */
  static void printAuthentication(String host, boolean insecure, Authentication a) {
    if (insecure && !LoamHttpServer.Builder.isLoopback(host)) {
      System.err.println(
          "loam: WARNING: --insecure: "
              + host
              + " is reachable from the network and anyone who reaches it may read, write and"
              + " delete every stream until the first API key is created (./loam keys create)");
    }
    System.out.println(
        "loam: authentication "
            + a.name().toLowerCase(java.util.Locale.ROOT)
            + (a == Authentication.REQUIRED
                ? " (every request needs an API key; create the first with ./loam keys create"
                    + " from this machine)"
                : " (open until the first API key exists; docs/security.md)"));
  }

  /**
   * Starts the Kafka gateway on {@code host:port} ({@code advertisedHost} announced in Metadata,
   * the bind host when null; Kafka's SSL protocol with {@code tls}), asking for SASL as {@code
   * security} says when {@code authentication} (the HTTP API's) asks for keys, failing like every
   * start step: one line naming {@code --kafka-port}.
   */
  static KafkaGateway startKafka(
      LoamNode node,
      String host,
      int port,
      String advertisedHost,
      Optional<TlsSettings> tls,
      Authentication authentication,
      KafkaFlags.Security security) {
    KafkaGatewaySettings.Builder b =
        KafkaGatewaySettings.builder()
            .host(host)
            .port(port)
            .authentication(
                switch (authentication) {
                  case WHEN_KEYS_EXIST -> KafkaGatewaySettings.Authentication.WHEN_KEYS_EXIST;
                  case REQUIRED -> KafkaGatewaySettings.Authentication.REQUIRED;
                  case NONE -> KafkaGatewaySettings.Authentication.NONE;
                });
    security.applyTo(b);
    tls.ifPresent(b::tls);
    if (advertisedHost != null) {
      b.advertisedHost(advertisedHost);
    }
    KafkaGatewaySettings settings = b.build();
    return StartFailure.step(
        "--kafka-port " + port, host + ":" + port, () -> KafkaGateway.start(node, settings));
  }

  /** The builder serving HTTPS with {@code tls} when present. */
  static LoamHttpServer.Builder withTls(LoamHttpServer.Builder b, Optional<TlsSettings> tls) {
    tls.ifPresent(b::tls);
    return b;
  }

  private static LoamNode startNode(Options o) {
    LoamNode.Builder nb = LoamNode.builder().nodeId(o.nodeId()).dataDir(o.dataDir());
    if (o.store() != null) {
      nb.storeUri(o.store());
    }
    if (o.kms().isPresent()) {
      // The KMS lives as long as the process: its one daemon thread ends with it, and the key
      // store file is consistent after every operation (written to a temporary file, renamed).
      KmsFlags.Settings k = o.kms().get();
      nb.keyManagement(k.open()).kmsTimeout(k.timeout());
    }
    return StartFailure.step(
        o.store() == null ? "--data-dir " + o.dataDir() : "--store " + o.store(), null, nb::start);
  }
}
