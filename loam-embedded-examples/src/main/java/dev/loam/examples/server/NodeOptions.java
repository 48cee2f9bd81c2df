package dev.loam.examples.server;

import dev.loam.api.NodeSettings;
import dev.loam.api.OwnershipSettings;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.StoreUris;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.examples.fault.FaultFile;
import dev.loam.meta.ratis.RatisSettings;
import dev.loam.spi.quorum.QuorumHostContext;
import dev.loam.tls.TlsSettings;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The command line of {@code loam node}: its option table ({@link #CMD}) and the validated values
 * it parses to. Parsing touches neither the data directory, the store nor the network, so every
 * mistake is reported before the node starts anything.
 */
public record NodeOptions(
    String id,
    String zone,
    Map<String, String> voters,
    Map<String, String> listeners,
    Path dataDir,
    String store,
    String host,
    int httpPort,
    int kafkaPort,
    int journalPort,
    Duration journalQuietSeal,
    int slots,
    String advertisedAddress,
    Duration flushInterval,
    int commitsInFlight,
    Duration startTimeout,
    Duration livenessTimeout,
    Path faultFile,
    Optional<TlsSettings> tls,
    Optional<TlsSettings> peerTls,
    boolean insecure,
    KafkaFlags.Security kafkaSecurity,
    Optional<KmsFlags.Settings> kms,
    long metaSegmentBytes,
    long segmentThresholdBytes,
    Duration maintenanceInterval) {

  /**
   * The journal server's {@code host:port}, or null without {@code --journal-port}: on the host of
   * the advertised address, since the address is what the other replicas dial.
   */
  String journalAddress() {
    return journalPort < 0 ? null : URI.create(advertisedAddress).getHost() + ":" + journalPort;
  }

  /** Where this node's Ratis replica keeps its log and snapshots. */
  Path metaDir() {
    return dataDir.resolve("meta");
  }

  RatisSettings ratisSettings() {
    return RatisSettings.builder(id, voters, metaDir())
        .listeners(listeners)
        .logSegmentSizeBytes(metaSegmentBytes)
        .build()
        .withPeerTls(peerTls);
  }

  NodeSettings nodeSettings() {
    NodeSettings s =
        NodeSettings.defaults().toBuilder()
            .segmentThresholdBytes(segmentThresholdBytes)
            .maintenanceInterval(maintenanceInterval)
            .build();
    if (flushInterval != null) {
      s = s.withFlushInterval(flushInterval);
    }
    s = s.withCommitsInFlight(commitsInFlight);
    return s.withIdentity(advertisedAddress, zone, slots);
  }

  String role() {
    return voters.containsKey(id) ? "voter" : "listener";
  }

  /** The flags of {@code loam node}, in the order of its help. */
  public static final Command CMD =
      new Command(
          "loam node",
          "Runs one cluster member: a Ratis metastore replica (its peer address is its entry in\n"
              + "--peers, its log in DIR/meta), a node on the shared object store and the HTTP API.\n"
              + "Every node gets the same --peers in the same order."
              + " See docs/operations/running-a-cluster.md.");

  static final Flag<String> ID =
      CMD.required(
          "--id|--node-id", "ID", NodeOptions::nodeId, "the node's stable id, one of --peers");
  static final Flag<Map<String, String>> PEERS =
      CMD.required(
          "--peers",
          "id=host:port,...",
          NodeOptions::parsePeers,
          "every member's metastore peer address, in the same order on every node");
  static final Flag<Path> DATA_DIR =
      CMD.required(
          "--data-dir", "DIR", Values.path(), "this node's own directory (Raft log, identity)");
  static final Flag<String> STORE =
      CMD.required(
          "--store",
          "URI",
          StoreUris.parser(true),
          "the object store every node shares: file:///dir, s3://, azblob://, gs://");
  static final Flag<Integer> HTTP_PORT =
      CMD.required("--http-port|--port", "PORT", Values.port(false), "the HTTP API port");
  static final Flag<Integer> KAFKA_PORT =
      CMD.optional(
          "--kafka-port",
          "PORT|off",
          Values.portOrOff(),
          "off",
          "the Kafka protocol port on --host (docs/reference/kafka.md), advertised in the registry");
  static final Flag<Integer> JOURNAL_PORT =
      CMD.optional(
          "--journal-port",
          "PORT|off",
          Values.portOrOff(),
          "off",
          "the quorum class's journal Raft port on the advertised host (docs/design/quorum.md),"
              + " advertised in the registry; its Raft logs in DIR/journal");
  static final Flag<Duration> JOURNAL_QUIET_SEAL =
      CMD.optional(
          "--journal-quiet-seal-ms",
          "MS",
          Values.millis(
              QuorumHostContext.MIN_QUIET_SEAL.toMillis(),
              QuorumHostContext.MAX_QUIET_SEAL.toMillis()),
          QuorumHostContext.DEFAULT_QUIET_SEAL.toMillis() + " (10 minutes)",
          "with --journal-port: a quorum partition's journal tail is sealed into a segment, whatever"
              + " its size, once it went this long without a seal (docs/design/quorum.md)");
  static final OtlpFlags.Listener OTLP = OtlpFlags.node(CMD);
  static final Flag<Integer> GRPC = GrpcFlags.node(CMD);
  static final Flag<Integer> FLIGHT = FlightFlags.node(CMD);
  static final Flag<String> HOST =
      CMD.flag(
          "--host",
          "H",
          Values.nonBlank(),
          "127.0.0.1",
          "the HTTP bind address; 0.0.0.0 binds every interface");
  static final Flag<String> ADVERTISED =
      CMD.optional(
          "--advertised-address",
          "URL",
          NodeOptions::advertisedUrl,
          "http(s)://H:PORT",
          "the address other nodes and clients use to reach this node");
  static final Flag<String> ZONE =
      CMD.optional("--zone", "Z", Values.text(), "none", "the node's availability zone");
  static final Flag<Integer> SLOTS =
      CMD.flag(
          "--slots", "N", Values.integer(1, 1_000_000), 1, "capacity weight for stream placement");
  static final Flag<Integer> VOTERS =
      CMD.optional(
          "--voters",
          "N",
          Values.integer(1, RatisSettings.MAX_VOTERS),
          "all peers up to 3, 3 of 4, 5 of 5 or more",
          "how many of the first --peers vote in the metastore; the rest are listeners");
  static final Flag<Duration> FLUSH =
      CMD.optional(
          "--flush-ms",
          "MS",
          Values.millis(1, 60_000),
          "250 standard, 5 express",
          "the WAL flush interval of standard and express streams");
  static final Flag<Integer> COMMITS_IN_FLIGHT =
      CMD.flag(
          "--commits-in-flight",
          "N",
          Values.integer(1, 64),
          NodeSettings.defaults().maxCommitsInFlight(),
          "WAL commit proposals per durability class with the metastore at once (1: one at a time)");
  static final Flag<Integer> START_TIMEOUT_S =
      CMD.flag(
          "--start-timeout-s",
          "S",
          Values.integer(1, (int) LoamNodeMain.MAX_START_TIMEOUT.toSeconds()),
          300,
          "how long to wait for a metastore leader and a confirmed registration");
  static final Flag<Integer> LIVENESS_TIMEOUT_MS =
      CMD.flag(
          "--liveness-timeout-ms",
          "MS",
          Values.integer(1000, 3_600_000),
          (int) OwnershipSettings.defaults().livenessTimeout().toMillis(),
          "how long a node may go without renewing before the others declare it dead");
  static final KafkaFlags.Declared KAFKA_SECURITY = KafkaFlags.declare(CMD);
  static final Flag<Boolean> INSECURE =
      CMD.toggle(
          "--insecure",
          "serve a non-loopback --host without API keys until the first key exists (warns)");
  static final Flag<Integer> SEGMENT_THRESHOLD_KIB =
      CMD.flag(
          "--segment-threshold-kib",
          "KIB",
          Values.integer(1, (int) (NodeSettings.defaults().segmentMaxBytes() >> 10)),
          (int) (NodeSettings.defaults().segmentThresholdBytes() >> 10),
          "a partition's WAL-backed entries are rewritten into a segment once they hold this much");
  static final Flag<Integer> MAINTENANCE_INTERVAL_MS =
      CMD.flag(
          "--maintenance-interval-ms",
          "MS",
          Values.integer(100, 3_600_000),
          (int) NodeSettings.defaults().maintenanceInterval().toMillis(),
          "how often the node runs retention, the segmenter, the compactor and GC");
  static final Flag<Integer> META_SEGMENT_KIB =
      CMD.flag(
          "--meta-segment-kib",
          "KIB",
          Values.integer(16, 1 << 20),
          8192,
          "the metastore's Raft log segment size; the log preallocates up to 4 MiB of it at a time");
  static final Flag<Path> FAULT_FILE =
      CMD.optional(
          "--fault-file",
          "PATH",
          FaultFile::checkPath,
          "none (no faults)",
          "chaos tests only: store fault rates read from PATH, re-read every 100 ms");

  static final TlsFlags.Listener TLS = TlsFlags.listener(CMD);
  static final KmsFlags.Options KMS = KmsFlags.declare(CMD);
  static final Flag<Path> PEER_TLS_CERT =
      CMD.optional(
          "--peer-tls-cert",
          "FILE",
          TlsFlags.certificates("certificate chain"),
          "none (plain)",
          "PEM certificate chain of this replica: mutual TLS on the Raft port");
  static final Flag<Path> PEER_TLS_KEY =
      CMD.optional(
          "--peer-tls-key",
          "FILE",
          TlsFlags.privateKey(),
          "none",
          "PEM private key (unencrypted PKCS#8) of --peer-tls-cert");
  static final Flag<Path> PEER_TLS_CA =
      CMD.optional(
          "--peer-tls-ca",
          "FILE",
          TlsFlags.certificates("peer CA"),
          "none",
          "PEM CA certificates every replica's certificate must chain to");

  /**
   * Parses and validates the command line without touching the data directory, the store or the
   * network; a {@link UsageException} names the flag at fault. {@code --help} is the caller's to
   * check first ({@link Command#parse} skips every check then).
   */
  public static NodeOptions parse(String[] args) {
    ParsedArgs a = CMD.parse(args);
    if (a.help()) {
      throw new UsageException(null, "--help is not a node to run");
    }
    String id = a.get(ID);
    Map<String, String> all = a.get(PEERS);
    if (!all.containsKey(id)) {
      throw new UsageException(ID.name(), id + " is not one of the --peers " + all.keySet());
    }
    int voters = a.given(VOTERS) ? a.get(VOTERS) : defaultVoters(all.size());
    if (voters > all.size()) {
      throw new UsageException(
          VOTERS.name(), voters + " exceeds the " + all.size() + " peers of --peers");
    }
    Map<String, String> voterMap = new LinkedHashMap<>();
    Map<String, String> listenerMap = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : all.entrySet()) {
      (voterMap.size() < voters ? voterMap : listenerMap).put(e.getKey(), e.getValue());
    }
    String host = a.get(HOST);
    int httpPort = a.get(HTTP_PORT);
    String advertised = a.get(ADVERTISED);
    Optional<TlsSettings> tls = TLS.settings(a);
    if (advertised == null) {
      try {
        advertised =
            (tls.isPresent() ? "https://" : "http://") + advertisableHost(host) + ":" + httpPort;
      } catch (IllegalArgumentException e) {
        throw new UsageException(HOST.name(), e.getMessage(), e);
      }
    }
    Optional<TlsSettings> peerTls =
        TlsFlags.settings(a, PEER_TLS_CERT, PEER_TLS_KEY, PEER_TLS_CA, true);
    int journalPort = a.given(JOURNAL_PORT) ? a.get(JOURNAL_PORT) : -1;
    if (a.given(JOURNAL_QUIET_SEAL) && journalPort < 0) {
      throw new UsageException(
          JOURNAL_QUIET_SEAL.name(), "seals journals, so it needs --journal-port PORT");
    }
    return new NodeOptions(
        id,
        a.given(ZONE) ? a.get(ZONE) : "",
        voterMap,
        listenerMap,
        a.get(DATA_DIR),
        a.get(STORE),
        host,
        httpPort,
        a.given(KAFKA_PORT) ? a.get(KAFKA_PORT) : -1,
        journalPort,
        a.given(JOURNAL_QUIET_SEAL)
            ? a.get(JOURNAL_QUIET_SEAL)
            : QuorumHostContext.DEFAULT_QUIET_SEAL,
        a.get(SLOTS),
        advertised,
        a.get(FLUSH),
        a.get(COMMITS_IN_FLIGHT),
        Duration.ofSeconds(a.get(START_TIMEOUT_S)),
        Duration.ofMillis(a.get(LIVENESS_TIMEOUT_MS)),
        a.get(FAULT_FILE),
        tls,
        peerTls,
        a.get(INSECURE),
        KAFKA_SECURITY.get(a),
        KMS.settings(a),
        a.get(META_SEGMENT_KIB) * 1024L,
        a.get(SEGMENT_THRESHOLD_KIB) * 1024L,
        Duration.ofMillis(a.get(MAINTENANCE_INTERVAL_MS)));
  }

  /**
   * Parses and validates a {@code loam node} command line as {@link #main} would, without starting
   * anything; a {@link UsageException} names the flag at fault.
   */
  public static void validate(String[] args) {
    if (!CMD.parse(args).help()) {
      parse(args);
    }
  }

  private static String nodeId(String v) {
    if (!v.matches("[A-Za-z0-9._-]+")) {
      throw new IllegalArgumentException("not an id of [A-Za-z0-9._-]+: " + v);
    }
    return v;
  }

  /**
   * How many of {@code peers} vote: all up to 3, then 3 of 4 (a fourth voter adds no failure
   * tolerance but one more vote to wait for), then 5 (tolerates two failures; more voters only slow
   * each commit down).
   */
  static int defaultVoters(int peers) {
    if (peers <= 3) {
      return peers;
    }
    return peers == 4 ? 3 : 5;
  }

  /** {@code id1=host:port,id2=host:port,...} in order; each id once. */
  static Map<String, String> parsePeers(String peers) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String p : peers.split(",")) {
      String s = p.strip();
      if (s.isEmpty()) {
        continue;
      }
      int eq = s.indexOf('=');
      require(eq > 0 && eq < s.length() - 1, "a peer must be id=host:port, got " + s);
      String pid = nodeId(s.substring(0, eq));
      String addr = s.substring(eq + 1);
      int colon = addr.lastIndexOf(':');
      require(colon > 0 && colon < addr.length() - 1, "a peer must be id=host:port, got " + s);
      String port = addr.substring(colon + 1);
      try {
        Values.port(false).parse(port);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the port of peer " + pid + ": " + e.getMessage(), e);
      }
      require(out.put(pid, addr) == null, "peer " + pid + " is listed twice");
    }
    require(!out.isEmpty(), "lists no peer");
    return out;
  }

  private static String advertisedUrl(String advertised) {
    try {
      URI u = new URI(advertised);
      require(
          ("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null,
          "not http://host:port: " + advertised);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not a URI: " + advertised, e);
    }
    return advertised;
  }

  /** A bind address others can use; the wildcard addresses are replaced by this host's name. */
  private static String advertisableHost(String host) {
    if (!host.equals("0.0.0.0") && !host.equals("::") && !host.equals("[::]")) {
      return host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host;
    }
    try {
      return InetAddress.getLocalHost().getCanonicalHostName();
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "--host "
              + host
              + " binds every interface and this host has no name: give"
              + " --advertised-address",
          e);
    }
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
