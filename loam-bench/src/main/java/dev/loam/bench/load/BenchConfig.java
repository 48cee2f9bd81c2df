package dev.loam.bench.load;

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
    String store,
    String zoneStore,
    LatencyModel.Profile latency,
    String coCorrection,
    long seed) {

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
        || objectsInFlight > 64) {
      throw new IllegalArgumentException(
          "options out of range (producers>=1, consumers>=0, record-bytes>=8, partitions>=1,"
              + " nodes 1..5, records-per-append>=1, in-flight>=1, wal-object-bytes>=1024,"
              + " objects-in-flight 1..64)");
    }
    if (durabilityClass == DurabilityClass.QUORUM) {
      throw new IllegalArgumentException("the quorum class is not implemented by Loam yet");
    }
    if (!transport.equals("embedded") && !transport.equals("http")) {
      throw new IllegalArgumentException("--transport is embedded or http, got " + transport);
    }
    if (!zoneStore.equals("file") && !zoneStore.equals("mem")) {
      throw new IllegalArgumentException("--zone-store is file or mem, got " + zoneStore);
    }
    if (!coCorrection.equals("intended") && !coCorrection.equals("expected-interval")) {
      throw new IllegalArgumentException("--co-correction is intended or expected-interval");
    }
  }

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
        null,
        "file",
        LatencyModel.Profile.LOCAL,
        "intended",
        42);
  }

  /** The flush interval in effect. */
  public long effectiveFlushMillis() {
    if (flushMillis > 0) {
      return flushMillis;
    }
    return durabilityClass == DurabilityClass.EXPRESS ? 5 : 250;
  }

  public String keysDescription() {
    return keys == 0 ? "null" : "uniform:" + keys;
  }

  /** A short description for the summary. */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s: class=%s flush=%dms latency=%s rate=%s producers=%d consumers=%d record=%dB keys=%s"
            + " partitions=%d nodes=%d transport=%s per-append=%d in-flight=%d%s duration=%ds warmup=%ds",
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
        walObjectBytes == 0 && objectsInFlight == 0
            ? ""
            : " wal-object-bytes="
                + (walObjectBytes == 0 ? 8 << 20 : walObjectBytes)
                + " objects-in-flight="
                + (objectsInFlight == 0 ? 4 : objectsInFlight),
        duration.toSeconds(),
        warmup.toSeconds());
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
    m.put("store", store == null ? "temp filesystem dir" : store);
    if (durabilityClass == DurabilityClass.EXPRESS) {
      m.put("zone_store", zoneStore.equals("mem") ? "in-memory" : "temp filesystem dirs");
    }
    m.put("latency", latency.name());
    m.put("latency_put", latency.put().toString());
    m.put("latency_get", latency.get().toString());
    m.put("co_correction", rate == 0 ? "none (flat out)" : coCorrection);
    m.put("seed", seed);
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
        store,
        zoneStore,
        latency,
        coCorrection,
        seed);
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
        store,
        zoneStore,
        lat,
        coCorrection,
        seed);
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
      boolean kafkaFsync) {}

  /** The text of {@code ./loam bench --help}. */
  public static final String HELP =
      """
      ./loam bench [options]: Loam's end-to-end load generator (embedded API).

        --producers N            producer threads (1)
        --consumers N            consumer threads long-polling with Log.fetch; partitions are
                                 shared round-robin (1; 0 = no end-to-end latency)
        --record-bytes N         value bytes per record, >= 8 (1024); the first 8 carry the send time
        --keys null|uniform:N    null keys (sticky partition) or N keys chosen uniformly (null)
        --partitions N           partitions of the stream (8)
        --nodes N                LoamNodes in this JVM (1): 1 uses the embedded single-node
                                 metastore; 2..5 give every node its own Apache Ratis voter
                                 (loopback gRPC) over one shared store; producer i appends
                                 through node i mod N, consumer j fetches through node j mod N
        --transport T            embedded (Log API calls in this JVM, default) or http: every
                                 node serves the native HTTP API on a loopback port and the
                                 producers and consumers use the JDK HTTP client (JSON, base64
                                 values); client and server share this JVM and its CPU figures
        --rate N                 records/s over all producers at a fixed schedule; 0 = flat out (0)
        --duration D             measured time, e.g. 20s, 500ms, 1m (20s)
        --warmup D               unmeasured time before it (5s)
        --class standard|express durability class (standard); express writes to 3 zonal stores
                                 (temp dirs) through ExpressObjectStore
        --flush-ms N             flush interval of the class (class default: standard 250, express 5)
        --records-per-append N   records per Log.append call (100)
        --in-flight N            appends in flight per producer (64)
        --wal-object-bytes N     a node's WAL object size limit (8388608, the spec's 8 MiB); on
                                 the filesystem store 1-2 MiB objects write a burst in parallel
        --objects-in-flight N    WAL objects a node writes at once, 1..64 (4)
        --store URI              object store URI (mem://, file:///path, ...); default a temp dir
        --zone-store file|mem    express zones: temp filesystem dirs, each write fsynced (file,
                                 default), or in-memory stores (mem), so that with --latency the
                                 injected delay alone models the zonal store
        --latency P              injected store latency, per call: local (none), s3-standard
                                 (PUT p50 40/p99 200 ms, GET 20/100), zonal-express (4/10), or
                                 custom:P50/P99[,GETP50/GETP99] (ms); lognormal fitted to p50/p99
        --co-correction M        at a fixed rate: intended (latency from the scheduled send time,
                                 default) or expected-interval (HdrHistogram correction)
        --seed N                 seed of keys, payloads and latency samples (42)
        --scenario S             quick (8 s + 2 s warm-up, the options above still apply) or
                                 baseline (the four scenarios of docs/operations/performance.md)
        --runs N                 repetitions of each scenario (1); medians and spreads reported
        --limits                 also measure memory copy, CRC32C and 8 MiB write+fsync, print ratios
        --out FILE               JSON output (target/bench-<timestamp>.json); the SVG plot goes next
                                 to it (same name, .svg)
        --vs-kafka               also run every scenario through the Kafka Java client against
                                 an Apache Kafka 4.4.0 broker (KRaft, one node, its own JVM),
                                 each Kafka run right after the Loam run; the summary and the
                                 JSON put both side by side with Loam/Kafka ratios. Producer:
                                 acks=all, linger.ms=5, batch.size=1 MiB, else Kafka defaults;
                                 the broker does not fsync per write (Kafka's default);
                                 Kafka is one broker whatever --nodes says
        --kafka-fsync            with --vs-kafka: topics with flush.messages=1, so the broker
                                 fsyncs every append before it acks (like-for-like durability
                                 with Loam's filesystem store, which fsyncs each WAL object)
        --kafka-lib DIR          the broker's jars (loam-bench/target/kafka-lib, made by the build)
        --help                   this text
      """;

  /** Parses the command line of {@code ./loam bench}. */
  public static Options parse(String[] args) {
    BenchConfig c = defaults();
    String scenario = null;
    int runs = 1;
    String out = null;
    boolean limits = false;
    boolean help = false;
    boolean vsKafka = false;
    String kafkaLib = null;
    boolean kafkaFsync = false;
    int producers = c.producers;
    int consumers = c.consumers;
    int recordBytes = c.recordBytes;
    int keys = c.keys;
    int partitions = c.partitions;
    int nodes = c.nodes;
    String transport = c.transport;
    long rate = c.rate;
    Duration duration = null;
    Duration warmup = null;
    DurabilityClass cls = c.durabilityClass;
    long flush = c.flushMillis;
    int perAppend = c.recordsPerAppend;
    int inFlight = c.inFlight;
    int walObjectBytes = c.walObjectBytes;
    int objectsInFlight = c.objectsInFlight;
    String store = c.store;
    String zoneStore = c.zoneStore;
    LatencyModel.Profile latency = c.latency;
    String co = c.coCorrection;
    long seed = c.seed;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (a.equals("--help") || a.equals("-h")) {
        help = true;
        continue;
      }
      if (a.equals("--limits")) {
        limits = true;
        continue;
      }
      if (a.equals("--vs-kafka")) {
        vsKafka = true;
        continue;
      }
      if (a.equals("--kafka-fsync")) {
        kafkaFsync = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("missing value for " + a);
      }
      String v = args[++i];
      switch (a) {
        case "--producers" -> producers = Integer.parseInt(v);
        case "--consumers" -> consumers = Integer.parseInt(v);
        case "--record-bytes" -> recordBytes = Integer.parseInt(v);
        case "--keys" -> keys = parseKeys(v);
        case "--partitions" -> partitions = Integer.parseInt(v);
        case "--nodes" -> nodes = Integer.parseInt(v);
        case "--transport" -> transport = v;
        case "--rate" -> rate = Long.parseLong(v);
        case "--duration" -> duration = parseDuration(v);
        case "--warmup" -> warmup = parseDuration(v);
        case "--class" -> cls = DurabilityClass.valueOf(v.toUpperCase(Locale.ROOT));
        case "--flush-ms" -> flush = Long.parseLong(v);
        case "--records-per-append" -> perAppend = Integer.parseInt(v);
        case "--in-flight" -> inFlight = Integer.parseInt(v);
        case "--wal-object-bytes" -> walObjectBytes = Integer.parseInt(v);
        case "--objects-in-flight" -> objectsInFlight = Integer.parseInt(v);
        case "--store" -> store = v;
        case "--zone-store" -> zoneStore = v;
        case "--latency" -> latency = LatencyModel.Profile.parse(v);
        case "--co-correction" -> co = v;
        case "--seed" -> seed = Long.parseLong(v);
        case "--scenario" -> scenario = v;
        case "--runs" -> runs = Integer.parseInt(v);
        case "--out" -> out = v;
        case "--kafka-lib" -> kafkaLib = v;
        default -> throw new IllegalArgumentException("unknown option " + a + " (see --help)");
      }
    }
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be >= 1");
    }
    boolean quick = "quick".equals(scenario);
    Duration d = duration != null ? duration : quick ? Duration.ofSeconds(8) : c.duration;
    Duration w = warmup != null ? warmup : quick ? Duration.ofSeconds(2) : c.warmup;
    BenchConfig base =
        new BenchConfig(
            scenario == null ? "custom" : scenario,
            producers,
            consumers,
            recordBytes,
            keys,
            partitions,
            nodes,
            transport,
            rate,
            d,
            w,
            cls,
            flush,
            perAppend,
            inFlight,
            walObjectBytes,
            objectsInFlight,
            store,
            zoneStore,
            latency,
            co,
            seed);
    List<BenchConfig> scenarios = new ArrayList<>();
    if (scenario == null || quick) {
      scenarios.add(base);
    } else if (scenario.equals("baseline")) {
      scenarios.addAll(baseline(base, rate));
    } else {
      throw new IllegalArgumentException("unknown scenario " + scenario + " (quick, baseline)");
    }
    if (kafkaFsync && !vsKafka) {
      throw new IllegalArgumentException("--kafka-fsync needs --vs-kafka");
    }
    return new Options(
        List.copyOf(scenarios), runs, out, limits, help, vsKafka, kafkaLib, kafkaFsync);
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
      int n = Integer.parseInt(v.substring("uniform:".length()));
      if (n < 1) {
        throw new IllegalArgumentException("uniform:N needs N >= 1");
      }
      return n;
    }
    throw new IllegalArgumentException("--keys is null or uniform:N, got " + v);
  }

  static Duration parseDuration(String v) {
    String s = v.trim().toLowerCase(Locale.ROOT);
    if (s.endsWith("ms")) {
      return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
    }
    if (s.endsWith("s")) {
      return Duration.ofMillis((long) (Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
    }
    if (s.endsWith("m")) {
      return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)) * 60);
    }
    return Duration.ofMillis((long) (Double.parseDouble(s) * 1000));
  }
}
