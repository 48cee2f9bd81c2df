package dev.loam.bench.load;

import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.StoreUris;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import dev.loam.wal.DurabilityClass;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One load scenario: what {@code ./loam bench} runs, parsed from the command line.
 *
 * @param keys 0 for null keys (sticky partitioning), else uniform over this many keys
 * @param rate records/s over all producers, 0 for flat out
 * @param flushMillis the flush interval, or 0 for the class default (standard 250, express 5)
 * @param inFlight appends in flight per producer
 * @param walObjectBytes the node's WAL object size limit, or 0 for the default (8 MiB)
 * @param objectsInFlight WAL objects a node writes at once, or 0 for the default (4)
 * @param commitsInFlight WAL commit proposals a node's writer has with the metastore at once, or 0
 *     for the default (1)
 * @param store the object store URI, or null for a temp filesystem directory
 * @param coCorrection {@code intended} (latency from each append's scheduled send time) or {@code
 *     expected-interval} (HdrHistogram's recordValueWithExpectedInterval on the latency from the
 *     actual send); only at a fixed rate
 */
public record BenchConfig(
    String name,
    int producers,
    int consumers,
    int recordBytes,
    int keys,
    int partitions,
    int nodes,
    String transport,
    long rate,
    Duration duration,
    Duration warmup,
    DurabilityClass durabilityClass,
    long flushMillis,
    int recordsPerAppend,
    int inFlight,
    int walObjectBytes,
    int objectsInFlight,
    int commitsInFlight,
    String store,
    String zoneStore,
    LatencyModel.Profile latency,
    String coCorrection,
    long seed,
    String compression,
    String payload) {

  public BenchConfig {
    if (producers < 1
        || consumers < 0
        || recordBytes < 8
        || keys < 0
        || partitions < 1
        || nodes < 1
        || nodes > 5
        || rate < 0
        || flushMillis < 0
        || recordsPerAppend < 1
        || inFlight < 1
        || (walObjectBytes != 0 && walObjectBytes < 1024)
        || objectsInFlight < 0
        || objectsInFlight > 64
        || commitsInFlight < 0
        || commitsInFlight > 64) {
      throw new IllegalArgumentException(
          "options out of range (producers>=1, consumers>=0, record-bytes>=8, partitions>=1,"
              + " nodes 1..5, records-per-append>=1, in-flight>=1, wal-object-bytes>=1024,"
              + " objects-in-flight 1..64, commits-in-flight 1..64)");
    }
    if (durabilityClass == DurabilityClass.QUORUM && nodes < 3) {
      throw new IllegalArgumentException(
          "the quorum class needs --nodes 3 or more (a journal has three replicas), got " + nodes);
    }
    if (!TRANSPORTS.contains(transport)) {
      throw new IllegalArgumentException(
          "--transport is one of " + String.join(", ", TRANSPORTS) + ", got " + transport);
    }
    if (!zoneStore.equals("file") && !zoneStore.equals("mem")) {
      throw new IllegalArgumentException("--zone-store is file or mem, got " + zoneStore);
    }
    if (!coCorrection.equals("intended") && !coCorrection.equals("expected-interval")) {
      throw new IllegalArgumentException("--co-correction is intended or expected-interval");
    }
    if (!COMPRESSIONS.contains(compression)) {
      throw new IllegalArgumentException(
          "--compression is one of " + String.join(", ", COMPRESSIONS) + ", got " + compression);
    }
    if (!payload.equals("random") && !payload.equals("json")) {
      throw new IllegalArgumentException("--payload is random or json, got " + payload);
    }
  }

  /** The values of {@code --compression}: Kafka's codec names. */
  static final List<String> COMPRESSIONS = List.of("none", "gzip", "snappy", "lz4", "zstd");

  /** The values of {@code --transport}. */
  static final List<String> TRANSPORTS = List.of("embedded", "http", "grpc", "kafka");

  /** The default scenario: 1 producer, 1 consumer, 1 KiB records, 8 partitions, flat out. */
  public static BenchConfig defaults() {
    return new BenchConfig(
        "custom",
        1,
        1,
        1024,
        0,
        8,
        1,
        "embedded",
        0,
        Duration.ofSeconds(20),
        Duration.ofSeconds(5),
        DurabilityClass.STANDARD,
        0,
        100,
        64,
        0,
        0,
        0,
        null,
        "file",
        LatencyModel.Profile.LOCAL,
        "intended",
        42,
        "none",
        "random");
  }

  /** The flush interval in effect. */
  public long effectiveFlushMillis() {
    if (flushMillis > 0) {
      return flushMillis;
    }
    return durabilityClass == DurabilityClass.EXPRESS ? 5 : 250;
  }

  /** What {@link #transport} means, for the report. */
  public String transportDetail() {
    return switch (transport) {
      case "http" -> "the JDK HTTP client against each node's native HTTP API on loopback";
      case "grpc" ->
          "grpc-java stubs generated from loam-grpc-proto against each node's gRPC API on"
              + " loopback: Produce calls, and one Subscribe stream per consumed partition";
      case "kafka" ->
          "the Kafka Java client of --vs-kafka (same producer and consumer code and settings)"
              + " against a Kafka gateway on each node, on loopback; topic created with"
              + " CreateTopics";
      default -> "Log API calls on the nodes in this JVM";
    };
  }

  public String keysDescription() {
    return keys == 0 ? "null" : "uniform:" + keys;
  }

  /** A short description for the summary. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s: class=%s flush=%dms latency=%s rate=%s producers=%d consumers=%d record=%dB keys=%s"
            + " partitions=%d nodes=%d transport=%s per-append=%d in-flight=%d%s duration=%ds warmup=%ds"
            + " compression=%s payload=%s",
        name,
        durabilityClass.name().toLowerCase(Locale.ROOT),
        effectiveFlushMillis(),
        latency.name(),
        rate == 0 ? "flat-out" : rate + "/s",
        producers,
        consumers,
        recordBytes,
        keysDescription(),
        partitions,
        nodes,
        transport,
        recordsPerAppend,
        inFlight,
        (walObjectBytes == 0 && objectsInFlight == 0
                ? ""
                : " wal-object-bytes="
                    + (walObjectBytes == 0 ? 8 << 20 : walObjectBytes)
                    + " objects-in-flight="
                    + (objectsInFlight == 0 ? 4 : objectsInFlight))
            + (commitsInFlight == 0 ? "" : " commits-in-flight=" + commitsInFlight),
        duration.toSeconds(),
        warmup.toSeconds(),
        compression,
        payload);
  }

  /** The configuration as JSON-able values. */
  public Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", name);
    m.put("producers", producers);
    m.put("consumers", consumers);
    m.put("record_bytes", recordBytes);
    m.put("keys", keysDescription());
    m.put("partitions", partitions);
    m.put("nodes", nodes);
    m.put("transport", transport);
    m.put("transport_detail", transportDetail());
    m.put("metastore", nodes == 1 ? "embedded single-node" : nodes + " Ratis voters, loopback");
    m.put("rate_records_per_s", rate == 0 ? "flat-out" : rate);
    m.put("duration_s", duration.toMillis() / 1000.0);
    m.put("warmup_s", warmup.toMillis() / 1000.0);
    m.put("class", durabilityClass.name().toLowerCase(Locale.ROOT));
    m.put("flush_ms", effectiveFlushMillis());
    m.put("records_per_append", recordsPerAppend);
    m.put("in_flight_per_producer", inFlight);
    m.put("wal_object_max_bytes", walObjectBytes == 0 ? 8 << 20 : walObjectBytes);
    m.put("wal_objects_in_flight", objectsInFlight == 0 ? 4 : objectsInFlight);
    m.put("wal_commits_in_flight", commitsInFlight == 0 ? 1 : commitsInFlight);
    m.put("store", store == null ? "temp filesystem dir" : store);
    if (durabilityClass == DurabilityClass.EXPRESS) {
      m.put("zone_store", zoneStore.equals("mem") ? "in-memory" : "temp filesystem dirs");
    }
    m.put("latency", latency.name());
    m.put("latency_put", latency.put().toString());
    m.put("latency_get", latency.get().toString());
    m.put("co_correction", rate == 0 ? "none (flat out)" : coCorrection);
    m.put("seed", seed);
    m.put("compression", compression);
    m.put("payload", payload);
    return m;
  }

  BenchConfig named(String n) {
    return new BenchConfig(
        n,
        producers,
        consumers,
        recordBytes,
        keys,
        partitions,
        nodes,
        transport,
        rate,
        duration,
        warmup,
        durabilityClass,
        flushMillis,
        recordsPerAppend,
        inFlight,
        walObjectBytes,
        objectsInFlight,
        commitsInFlight,
        store,
        zoneStore,
        latency,
        coCorrection,
        seed,
        compression,
        payload);
  }

  BenchConfig with(
      DurabilityClass c, long flush, LatencyModel.Profile lat, long r, String scenarioName) {
    return new BenchConfig(
        scenarioName,
        producers,
        consumers,
        recordBytes,
        keys,
        partitions,
        nodes,
        transport,
        r,
        duration,
        warmup,
        c,
        flush,
        recordsPerAppend,
        inFlight,
        walObjectBytes,
        objectsInFlight,
        commitsInFlight,
        store,
        zoneStore,
        lat,
        coCorrection,
        seed,
        compression,
        payload);
  }

  /** This scenario in durability class {@code cls}, named {@code n}. */
  BenchConfig withDurabilityClass(DurabilityClass cls, String n) {
    return new BenchConfig(
        n,
        producers,
        consumers,
        recordBytes,
        keys,
        partitions,
        nodes,
        transport,
        rate,
        duration,
        warmup,
        cls,
        flushMillis,
        recordsPerAppend,
        inFlight,
        walObjectBytes,
        objectsInFlight,
        commitsInFlight,
        store,
        zoneStore,
        latency,
        coCorrection,
        seed,
        compression,
        payload);
  }

  /** The classes of {@code --class}: distinct, in the order given. */
  static List<DurabilityClass> classes(String text) {
    List<DurabilityClass> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String t = part.trim();
      DurabilityClass c;
      try {
        c =
            DurabilityClass.valueOf(
                Values.oneOf("standard", "express", "quorum").parse(t).toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--class", e.getMessage(), e);
      }
      if (out.contains(c)) {
        throw new UsageException("--class", "names " + t + " twice: " + text);
      }
      out.add(c);
    }
    return out;
  }

  /** This scenario with {@code k} commit proposals in flight per writer, named {@code n}. */
  BenchConfig withCommitsInFlight(int k, String n) {
    return new BenchConfig(
        n,
        producers,
        consumers,
        recordBytes,
        keys,
        partitions,
        nodes,
        transport,
        rate,
        duration,
        warmup,
        durabilityClass,
        flushMillis,
        recordsPerAppend,
        inFlight,
        walObjectBytes,
        objectsInFlight,
        k,
        store,
        zoneStore,
        latency,
        coCorrection,
        seed,
        compression,
        payload);
  }

  /** The values of {@code --commits-in-flight}: a comma-separated list of 1..64, no repeats. */
  static List<Integer> commitsInFlight(String text) {
    List<Integer> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      int k;
      try {
        k = Integer.parseInt(part.strip());
      } catch (NumberFormatException e) {
        throw new UsageException(
            "--commits-in-flight", "is a comma-separated list of 1..64, got " + text, e);
      }
      if (k < 1 || k > 64 || out.contains(k)) {
        throw new UsageException(
            "--commits-in-flight",
            "is a comma-separated list of distinct values 1..64, got " + text);
      }
      out.add(k);
    }
    return out;
  }

  /** The command line, parsed. */
  public record Options(
      List<BenchConfig> scenarios,
      int runs,
      String out,
      boolean limits,
      boolean help,
      boolean vsKafka,
      String kafkaLib,
      boolean kafkaFsync,
      GatewaySecurity kafkaSecurity) {}

  /** The flags of {@code ./loam bench}, in the order of its help. */
  public static final Command CMD =
      new Command(
          "loam bench",
          "Loam's end-to-end load generator: producers append to one stream and consumers\n"
              + "long-poll it, for a warm-up and a measured time; prints a summary, writes a JSON\n"
              + "report and an SVG plot of the latency percentiles"
              + " (docs/operations/performance.md).");

  private static final BenchConfig D = defaults();

  static final Flag<Integer> PRODUCERS =
      CMD.flag("--producers", "N", Values.integer(1, 1024), D.producers, "producer threads");
  static final Flag<Integer> CONSUMERS =
      CMD.flag(
          "--consumers",
          "N",
          Values.integer(0, 1024),
          D.consumers,
          "consumer threads long-polling with Log.fetch, partitions shared round-robin"
              + " (0 = no end-to-end latency)");
  static final Flag<Integer> RECORD_BYTES =
      CMD.flag(
          "--record-bytes",
          "N",
          Values.integer(8, 64 << 20),
          D.recordBytes,
          "value bytes per record; the first 8 carry the send time");
  static final Flag<Integer> KEYS =
      CMD.optional(
          "--keys",
          "null|uniform:N",
          BenchConfig::parseKeys,
          "null",
          "null keys (sticky partition) or N keys chosen uniformly");
  static final Flag<Integer> PARTITIONS =
      CMD.flag(
          "--partitions",
          "N",
          Values.integer(1, 100_000),
          D.partitions,
          "partitions of the stream");
  static final Flag<Integer> NODES =
      CMD.flag(
          "--nodes",
          "N",
          Values.integer(1, 5),
          D.nodes,
          "LoamNodes in this JVM; 2..5 give each its own Ratis voter on one shared store");
  static final Flag<String> TRANSPORT =
      CMD.flag(
          "--transport",
          "T",
          Values.oneOf(TRANSPORTS.toArray(String[]::new)),
          D.transport,
          "embedded (Log API calls in this JVM), http (each node serves the HTTP API on loopback),"
              + " grpc (each node serves the gRPC API; consumers use Subscribe)"
              + " or kafka (each node runs a Kafka gateway; the Kafka Java client of --vs-kafka"
              + " drives it)");
  static final Flag<Long> RATE =
      CMD.flag(
          "--rate",
          "N",
          Values.longValue(0, Long.MAX_VALUE),
          D.rate,
          "records/s over all producers at a fixed schedule; 0 = flat out");
  static final Flag<Duration> DURATION =
      CMD.optional(
          "--duration", "D", Values.duration(), "20s (quick: 8s)", "measured time: 500ms, 20s, 1m");
  static final Flag<Duration> WARMUP =
      CMD.optional(
          "--warmup", "D", Values.duration(), "5s (quick: 2s)", "unmeasured time before it");
  static final Flag<String> CLASS =
      CMD.optional(
          "--class",
          "standard|express|quorum[,...]",
          Values.nonBlank(),
          "standard",
          "durability class; express writes to 3 zonal stores through ExpressObjectStore, quorum"
              + " appends to a Raft journal on the nodes' journal ports (needs --nodes 3 or more);"
              + " several values run the scenario once per class, interleaved within each run");
  static final Flag<Long> FLUSH_MS =
      CMD.optional(
          "--flush-ms",
          "N",
          Values.longValue(1, 60_000),
          "standard 250, express 5",
          "flush interval of the class");
  static final Flag<Integer> RECORDS_PER_APPEND =
      CMD.flag(
          "--records-per-append",
          "N",
          Values.integer(1, 100_000),
          D.recordsPerAppend,
          "records per Log.append call");
  static final Flag<Integer> IN_FLIGHT =
      CMD.flag(
          "--in-flight",
          "N",
          Values.integer(1, 1_000_000),
          D.inFlight,
          "appends in flight per producer");
  static final Flag<Integer> WAL_OBJECT_BYTES =
      CMD.optional(
          "--wal-object-bytes",
          "N",
          Values.integer(1024, Integer.MAX_VALUE),
          "8388608",
          "a node's WAL object size limit (on the filesystem store 1-2 MiB write bursts in parallel)");
  static final Flag<Integer> OBJECTS_IN_FLIGHT =
      CMD.optional(
          "--objects-in-flight",
          "N",
          Values.integer(1, 64),
          "4",
          "WAL objects a node writes at once");
  static final Flag<String> COMMITS_IN_FLIGHT =
      CMD.optional(
          "--commits-in-flight",
          "N[,N...]",
          Values.nonBlank(),
          "1",
          "WAL commit proposals a node's writer has with the metastore at once; several values run"
              + " the scenario once per value, interleaved within each run");
  static final Flag<String> STORE =
      CMD.optional(
          "--store",
          "URI",
          StoreUris.parser(false),
          "a temp directory",
          "object store URI: mem://, file:///path, s3://, azblob://, gs://");
  static final Flag<String> ZONE_STORE =
      CMD.flag(
          "--zone-store",
          "file|mem",
          Values.oneOf("file", "mem"),
          D.zoneStore,
          "express zones: temp directories fsynced per write, or in-memory (latency injected only)");
  static final Flag<LatencyModel.Profile> LATENCY =
      CMD.optional(
          "--latency",
          "P",
          LatencyModel.Profile::parse,
          "local",
          "injected store latency: local, s3-standard, zonal-express, custom:P50/P99[,GP50/GP99]");
  static final Flag<String> CO_CORRECTION =
      CMD.flag(
          "--co-correction",
          "M",
          Values.oneOf("intended", "expected-interval"),
          D.coCorrection,
          "at a fixed rate: latency from the scheduled send (intended) or HdrHistogram's correction");
  static final Flag<Long> SEED =
      CMD.flag(
          "--seed",
          "N",
          Values.longValue(Long.MIN_VALUE, Long.MAX_VALUE),
          D.seed,
          "seed of keys, payloads and latency samples");
  static final Flag<String> COMPRESSION =
      CMD.flag(
          "--compression",
          "none|gzip|snappy|lz4|zstd",
          Values.oneOf("none", "gzip", "snappy", "lz4", "zstd"),
          D.compression,
          "codec of every batch, none, gzip, snappy, lz4 or zstd: Loam's stream default"
              + " (encoded on the producer thread) and the Kafka producer's compression.type");
  static final Flag<String> PAYLOAD =
      CMD.flag(
          "--payload",
          "random|json",
          Values.oneOf("random", "json"),
          D.payload,
          "values: random (bytes from a random pool) or json (realistic JSON log lines of"
              + " --record-bytes, e.g. to measure --compression)");
  static final Flag<String> SCENARIO =
      CMD.optional(
          "--scenario",
          "S",
          Values.oneOf("quick", "baseline"),
          "custom",
          "quick (8 s + 2 s warm-up) or baseline (the four scenarios of performance.md)");
  static final Flag<Integer> RUNS =
      CMD.flag(
          "--runs",
          "N",
          Values.integer(1, 1000),
          1,
          "repetitions of each scenario (medians, spreads)");
  static final Flag<Boolean> LIMITS =
      CMD.toggle(
          "--limits", "also measure memory copy, CRC32C and 8 MiB write+fsync, print ratios");
  static final Flag<String> OUT =
      CMD.optional(
          "--out",
          "FILE",
          Values.nonBlank(),
          "target/bench-<timestamp>.json",
          "JSON report; the SVG plot goes next to it (same name, .svg)");
  static final Flag<Boolean> VS_KAFKA =
      CMD.toggle(
          "--vs-kafka",
          "also run every scenario through the Kafka client against a one-broker Apache Kafka");
  static final Flag<Boolean> KAFKA_FSYNC =
      CMD.toggle(
          "--kafka-fsync", "with --vs-kafka: topics with flush.messages=1 (fsync before each ack)");
  static final Flag<String> KAFKA_TLS_CERT =
      CMD.optional(
          "--kafka-tls-cert",
          "FILE",
          Values.nonBlank(),
          "none (plaintext)",
          "with --transport kafka: the gateways' PEM certificate chain (TLS)");
  static final Flag<String> KAFKA_TLS_KEY =
      CMD.optional(
          "--kafka-tls-key",
          "FILE",
          Values.nonBlank(),
          "none",
          "with --kafka-tls-cert: its PEM private key (unencrypted PKCS#8)");
  static final Flag<String> KAFKA_TLS_CA =
      CMD.optional(
          "--kafka-tls-ca",
          "FILE",
          Values.nonBlank(),
          "none",
          "with --kafka-tls-cert: the PEM CA certificate the bench's clients trust");
  static final Flag<String> KAFKA_SASL =
      CMD.optional(
          "--kafka-sasl",
          "MECH",
          Values.nonBlank(),
          "none",
          "with --transport kafka: authenticate with PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 on a"
              + " key the run creates");
  static final Flag<String> KAFKA_LIB =
      CMD.optional(
          "--kafka-lib",
          "DIR",
          Values.nonBlank(),
          "loam-bench/target/kafka-lib",
          "the broker's jars (made by the build)");

  /**
   * Parses the command line of {@code ./loam bench}; a {@link UsageException} names the flag at
   * fault. With {@code --help} only {@link Options#help()} is meaningful.
   */
  public static Options parse(String[] args) {
    ParsedArgs a = CMD.parse(args);
    if (a.help()) {
      return new Options(List.of(), 1, null, false, true, false, null, false, GatewaySecurity.NONE);
    }
    String scenario = a.get(SCENARIO);
    boolean quick = "quick".equals(scenario);
    Duration d = a.given(DURATION) ? a.get(DURATION) : quick ? Duration.ofSeconds(8) : D.duration;
    Duration w = a.given(WARMUP) ? a.get(WARMUP) : quick ? Duration.ofSeconds(2) : D.warmup;
    if (a.get(KAFKA_FSYNC) && !a.get(VS_KAFKA)) {
      throw new UsageException(KAFKA_FSYNC.name(), "needs --vs-kafka");
    }
    GatewaySecurity security = gatewaySecurity(a);
    long rate = a.get(RATE);
    BenchConfig base;
    try {
      base =
          new BenchConfig(
              scenario == null ? "custom" : scenario,
              a.get(PRODUCERS),
              a.get(CONSUMERS),
              a.get(RECORD_BYTES),
              a.given(KEYS) ? a.get(KEYS) : D.keys,
              a.get(PARTITIONS),
              a.get(NODES),
              a.get(TRANSPORT),
              rate,
              d,
              w,
              classes(a.given(CLASS) ? a.get(CLASS) : "standard").get(0),
              a.given(FLUSH_MS) ? a.get(FLUSH_MS) : D.flushMillis,
              a.get(RECORDS_PER_APPEND),
              a.get(IN_FLIGHT),
              a.given(WAL_OBJECT_BYTES) ? a.get(WAL_OBJECT_BYTES) : D.walObjectBytes,
              a.given(OBJECTS_IN_FLIGHT) ? a.get(OBJECTS_IN_FLIGHT) : D.objectsInFlight,
              D.commitsInFlight,
              a.get(STORE),
              a.get(ZONE_STORE),
              a.given(LATENCY) ? a.get(LATENCY) : D.latency,
              a.get(CO_CORRECTION),
              a.get(SEED),
              a.get(COMPRESSION),
              a.get(PAYLOAD));
    } catch (UsageException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new UsageException(null, e.getMessage(), e);
    }
    List<BenchConfig> scenarios = new ArrayList<>();
    if ("baseline".equals(scenario)) {
      scenarios.addAll(baseline(base, rate));
    } else {
      scenarios.add(base);
    }
    List<DurabilityClass> classes = classes(a.given(CLASS) ? a.get(CLASS) : "standard");
    if (classes.size() > 1) {
      List<BenchConfig> perClass = new ArrayList<>();
      for (BenchConfig sc : scenarios) {
        for (DurabilityClass cls : classes) {
          try {
            perClass.add(
                sc.withDurabilityClass(cls, sc.name() + "-" + cls.name().toLowerCase(Locale.ROOT)));
          } catch (IllegalArgumentException e) {
            throw new UsageException(null, e.getMessage(), e);
          }
        }
      }
      scenarios = perClass;
    }
    if (a.given(COMMITS_IN_FLIGHT)) {
      List<Integer> ks = commitsInFlight(a.get(COMMITS_IN_FLIGHT));
      List<BenchConfig> perK = new ArrayList<>();
      for (BenchConfig sc : scenarios) {
        for (int k : ks) {
          perK.add(
              ks.size() == 1
                  ? sc.withCommitsInFlight(k, sc.name())
                  : sc.withCommitsInFlight(k, sc.name() + "-k" + k));
        }
      }
      scenarios = perK;
    }
    return new Options(
        List.copyOf(scenarios),
        a.get(RUNS),
        a.get(OUT),
        a.get(LIMITS),
        false,
        a.get(VS_KAFKA),
        a.get(KAFKA_LIB),
        a.get(KAFKA_FSYNC),
        security);
  }

  /** {@code --kafka-tls-*} and {@code --kafka-sasl}, checked; NONE when none is given. */
  static GatewaySecurity gatewaySecurity(ParsedArgs a) {
    boolean tls = a.given(KAFKA_TLS_CERT) || a.given(KAFKA_TLS_KEY) || a.given(KAFKA_TLS_CA);
    if (!tls && !a.given(KAFKA_SASL)) {
      return GatewaySecurity.NONE;
    }
    if (!a.get(TRANSPORT).equals("kafka")) {
      throw new UsageException(
          (tls ? KAFKA_TLS_CERT : KAFKA_SASL).name(), "needs --transport kafka");
    }
    java.util.Optional<dev.loam.tls.TlsSettings> settings = java.util.Optional.empty();
    java.nio.file.Path ca = null;
    if (tls) {
      for (Flag<String> f : List.of(KAFKA_TLS_CERT, KAFKA_TLS_KEY, KAFKA_TLS_CA)) {
        if (!a.given(f)) {
          throw new UsageException(
              f.name(), "--kafka-tls-cert, --kafka-tls-key and --kafka-tls-ca go together");
        }
      }
      try {
        settings =
            java.util.Optional.of(
                dev.loam.tls.TlsSettings.of(
                    java.nio.file.Path.of(a.get(KAFKA_TLS_CERT)),
                    java.nio.file.Path.of(a.get(KAFKA_TLS_KEY))));
      } catch (RuntimeException e) {
        throw new UsageException(KAFKA_TLS_CERT.name(), e.getMessage(), e);
      }
      ca = java.nio.file.Path.of(a.get(KAFKA_TLS_CA));
      if (!java.nio.file.Files.isReadable(ca)) {
        throw new UsageException(KAFKA_TLS_CA.name(), "cannot read " + ca);
      }
    }
    String sasl = null;
    if (a.given(KAFKA_SASL)) {
      sasl = a.get(KAFKA_SASL).toUpperCase(java.util.Locale.ROOT);
      if (!dev.loam.kafka.KafkaGatewaySettings.SASL_MECHANISMS.contains(sasl)) {
        throw new UsageException(
            KAFKA_SASL.name(),
            "one of "
                + String.join(", ", dev.loam.kafka.KafkaGatewaySettings.SASL_MECHANISMS)
                + ", got "
                + a.get(KAFKA_SASL));
      }
    }
    return new GatewaySecurity(settings, ca, sasl);
  }

  /**
   * The scenarios of docs/operations/performance.md: local store flat out with a 5 ms and a 250 ms
   * flush, s3-standard at a fixed rate with a 250 ms flush, express with zonal-express at a fixed
   * rate.
   */
  static List<BenchConfig> baseline(BenchConfig base, long rate) {
    long fixed = rate > 0 ? rate : 20_000;
    return List.of(
        base.with(DurabilityClass.STANDARD, 5, LatencyModel.Profile.LOCAL, 0, "local-5ms-flatout"),
        base.with(
            DurabilityClass.STANDARD, 250, LatencyModel.Profile.LOCAL, 0, "local-250ms-flatout"),
        base.with(
            DurabilityClass.STANDARD,
            250,
            LatencyModel.Profile.S3_STANDARD,
            fixed,
            "s3std-250ms-" + fixed + "rps"),
        base.with(
            DurabilityClass.EXPRESS,
            5,
            LatencyModel.Profile.ZONAL_EXPRESS,
            fixed,
            "express-5ms-" + fixed + "rps"));
  }

  static int parseKeys(String v) {
    if (v.equals("null")) {
      return 0;
    }
    if (v.startsWith("uniform:")) {
      return Values.integer(1, Integer.MAX_VALUE).parse(v.substring("uniform:".length()));
    }
    throw new IllegalArgumentException("not null or uniform:N: " + v);
  }
}
