package dev.loam.bench.load;

import dev.loam.cli.UsageException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * {@code ./loam bench}: Loam's end-to-end load generator. Runs each scenario {@code --runs} times
 * (interleaved), prints a summary and writes a JSON report and an SVG plot of the latency
 * percentile distributions. {@link BenchConfig#CMD} declares its options ({@code --help} prints
 * them).
 */
public final class LoadBench {
  private LoadBench() {}

  /** The figures summarised over runs: median and min..max. */
  static final String[][] KEY_FIGURES = {
    {"records_per_s"},
    {"mb_per_s"},
    {"ack_latency_ms", "p50"},
    {"ack_latency_ms", "p90"},
    {"ack_latency_ms", "p99"},
    {"ack_latency_ms", "p99_9"},
    {"ack_latency_ms", "max"},
    {"e2e_latency_ms", "p50"},
    {"e2e_latency_ms", "p99"},
    {"e2e_latency_ms", "max"},
    {"cpu_s_per_gb"},
    {"cpu_us_per_record"},
    {"cpu_cores_busy"},
    {"node_cpu_us_per_record"},
    {"cpu_us_per_record_by_group", "node_user"},
    {"cpu_us_per_record_by_group", "store"},
    {"cpu_us_per_record_by_group", "store_user"},
    {"cpu_us_per_record_by_group", "bench"},
    {"cpu_us_per_record_by_group", "jvm"},
    {"allocated_bytes_per_record"},
    {"read_tail_hits_per_s"},
    {"read_object_gets_per_s"},
    {"read_object_get_mb_per_s"},
    {"store_puts_per_s"},
    {"store_gets_per_s"},
    {"store_mean_bytes_per_put"},
    {"metastore_proposals_per_s"},
    {"wal_objects_per_s"},
    {"mean_put_ms_whole_run"},
    {"mean_commit_ms_whole_run"},
  };

  /** The Kafka figures summarised over runs (a subset: Kafka has no store or metastore). */
  static final String[][] KAFKA_FIGURES = {
    {"records_per_s"},
    {"mb_per_s"},
    {"ack_latency_ms", "p50"},
    {"ack_latency_ms", "p90"},
    {"ack_latency_ms", "p99"},
    {"ack_latency_ms", "p99_9"},
    {"ack_latency_ms", "max"},
    {"e2e_latency_ms", "p50"},
    {"e2e_latency_ms", "p99"},
    {"e2e_latency_ms", "max"},
    {"cpu_s_per_gb"},
    {"cpu_us_per_record"},
    {"cpu_cores_busy"},
    {"broker_cpu_cores_busy"},
    {"client_cpu_cores_busy"},
  };

  /**
   * The figures compared as Loam/Kafka: above 1 Loam has more throughput, or more latency or CPU
   * (worse).
   */
  static final String[][] RATIO_FIGURES = {
    {"records_per_s"},
    {"mb_per_s"},
    {"ack_latency_ms", "p50"},
    {"ack_latency_ms", "p90"},
    {"ack_latency_ms", "p99"},
    {"ack_latency_ms", "p99_9"},
    {"ack_latency_ms", "max"},
    {"e2e_latency_ms", "p50"},
    {"e2e_latency_ms", "p99"},
    {"e2e_latency_ms", "max"},
    {"cpu_us_per_record"},
    {"cpu_cores_busy"},
  };

  /** All runs of one scenario; {@code kafka} holds the runs of {@code --vs-kafka}, if any. */
  record ScenarioRuns(BenchConfig config, List<LoadRun.Result> runs, List<LoadRun.Result> kafka) {
    ScenarioRuns(BenchConfig config, List<LoadRun.Result> runs) {
      this(config, runs, new ArrayList<>());
    }
  }

  /** What a bench invocation produced. */
  record Outcome(Map<String, Object> report, Path json, int exitCode) {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args));
  }

  /** Runs the bench; returns the exit code. */
  public static int run(String[] args) throws Exception {
    BenchConfig.Options o;
    try {
      o = BenchConfig.parse(args);
    } catch (UsageException e) {
      BenchConfig.CMD.printUsageError(e, System.err);
      return 2;
    }
    if (o.help()) {
      System.out.print(BenchConfig.CMD.help());
      return 0;
    }
    return execute(o).exitCode();
  }

  /** Runs the parsed bench: the runs, the summary on stdout, the JSON and SVG files. */
  static Outcome execute(BenchConfig.Options o) throws Exception {
    double loadAtStart = loadAverage();
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path out = Path.of(o.out() != null ? o.out() : "target/bench-" + stamp + ".json");
    MachineLimits limits = null;
    if (o.limits()) {
      System.out.println("measuring machine limits (memory copy, CRC32C, 8 MiB write+fsync)...");
      Path dir = Files.createTempDirectory("loam-bench-limits-");
      limits = MachineLimits.measure(dir);
      Files.deleteIfExists(dir);
      System.out.printf(
          Locale.ROOT,
          "limits: memcopy %.1f GB/s, CRC32C %.1f GB/s, 8 MiB write+fdatasync %.0f MB/s (per file"
              + " p50 %.1f ms, p99 %.1f ms)%n",
          limits.memcopyGBps(),
          limits.crc32cGBps(),
          limits.fsyncWriteMBps(),
          limits.fsync8MiBP50Millis(),
          limits.fsync8MiBP99Millis());
    }
    List<ScenarioRuns> all = new ArrayList<>();
    for (BenchConfig c : o.scenarios()) {
      all.add(new ScenarioRuns(c, new ArrayList<>()));
    }
    Map<String, Object> kafkaSetup = null;
    KafkaBroker broker = null;
    try {
      if (o.vsKafka()) {
        Path lib = o.kafkaLib() != null ? Path.of(o.kafkaLib()) : KafkaBroker.defaultLibDir();
        System.out.println("starting Apache Kafka " + KafkaBroker.VERSION + " from " + lib + "...");
        long t0 = System.nanoTime();
        broker = KafkaBroker.start(lib);
        System.out.printf(
            Locale.ROOT,
            "kafka broker pid %d at %s, ready in %.1f s%n",
            broker.pid(),
            broker.bootstrap(),
            (System.nanoTime() - t0) / 1e9);
        kafkaSetup = KafkaRun.setupJson(broker, o.kafkaFsync());
      }
      // Interleave: run 1 of every scenario, then run 2, ... so drift hits all of them alike; with
      // --vs-kafka each Loam run is followed by the same workload through Kafka.
      for (int r = 1; r <= o.runs(); r++) {
        for (int i = 0; i < all.size(); i++) {
          ScenarioRuns s = all.get(i);
          System.out.printf("run %d/%d %s%n", r, o.runs(), s.config().describe());
          LoadRun.Result res = new LoadRun(s.config(), o.kafkaSecurity()).run();
          res.figures().put("load_average_1m_at_end", loadAverage());
          s.runs().add(res);
          System.out.println("  " + oneLine(res.figures()));
          if (broker != null) {
            System.out.printf("run %d/%d kafka %s%n", r, o.runs(), s.config().name());
            LoadRun.Result k =
                new KafkaRun(s.config(), broker, "load-" + i + "-" + r, o.kafkaFsync()).run();
            k.figures().put("load_average_1m_at_end", loadAverage());
            s.kafka().add(k);
            System.out.println("  kafka: " + oneLineKafka(k.figures()));
          }
        }
      }
    } finally {
      if (broker != null) {
        broker.close();
      }
    }
    Map<String, Object> report = report(o, all, limits, stamp, kafkaSetup, loadAtStart);
    System.out.println();
    System.out.print(summaryTable(all, limits));
    System.out.printf(
        Locale.ROOT,
        "load average (1 min): %.2f at start, %.2f at end%n",
        loadAtStart,
        loadAverage());
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.write(report), StandardCharsets.UTF_8);
    Path svg = svgPath(out);
    List<SvgPlot.Series> series = new ArrayList<>();
    for (ScenarioRuns s : all) {
      series.add(
          new SvgPlot.Series(s.config().name(), merged(s.runs(), true), merged(s.runs(), false)));
      if (!s.kafka().isEmpty()) {
        series.add(
            new SvgPlot.Series(
                "kafka " + s.config().name(), merged(s.kafka(), true), merged(s.kafka(), false)));
      }
    }
    Files.writeString(
        svg,
        SvgPlot.render(
            (o.vsKafka() ? "Loam and Kafka" : "Loam")
                + " ack latency by percentile ("
                + stamp
                + ")",
            series),
        StandardCharsets.UTF_8);
    System.out.println("wrote " + out + " and " + svg);
    boolean failed =
        all.stream()
            .anyMatch(
                s ->
                    s.runs().stream().anyMatch(LoadBench::failed)
                        || s.kafka().stream().anyMatch(LoadBench::failed));
    return new Outcome(report, out, failed ? 1 : 0);
  }

  private static double loadAverage() {
    return ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private static boolean failed(LoadRun.Result r) {
    return ((Number) r.figures().get("appends_failed")).longValue() > 0;
  }

  static Path svgPath(Path json) {
    String n = json.getFileName().toString();
    String base = n.endsWith(".json") ? n.substring(0, n.length() - 5) : n;
    return json.resolveSibling(base + ".svg");
  }

  private static Histogram merged(List<LoadRun.Result> runs, boolean ack) {
    Histogram h = new Histogram(600_000_000L, 3);
    for (LoadRun.Result r : runs) {
      h.add(ack ? r.ack() : r.e2e());
    }
    return h;
  }

  /** The JSON report. */
  static Map<String, Object> report(
      BenchConfig.Options o, List<ScenarioRuns> all, MachineLimits limits, String stamp) {
    return report(o, all, limits, stamp, null, Double.NaN);
  }

  /**
   * The JSON report; with {@code kafkaSetup} (a {@code --vs-kafka} run) a top-level "kafka" with
   * the broker and client settings, and per scenario a "kafka" section: summary, runs and "ratios"
   * (Loam median / Kafka median).
   */
  static Map<String, Object> report(
      BenchConfig.Options o,
      List<ScenarioRuns> all,
      MachineLimits limits,
      String stamp,
      Map<String, Object> kafkaSetup,
      double loadAtStart) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tool", "loam bench");
    m.put("timestamp", stamp);
    Map<String, Object> machine = machine();
    machine.put("load_average_at_start", loadAtStart);
    m.put("machine", machine);
    m.put("runs_per_scenario", o.runs());
    m.put("limits", limits == null ? null : limits.toJson());
    if (kafkaSetup != null) {
      m.put("kafka", kafkaSetup);
    }
    List<Object> scenarios = new ArrayList<>();
    for (ScenarioRuns s : all) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("config", s.config().toJson());
      sm.put("summary", summary(s.runs(), KEY_FIGURES));
      if (limits != null) {
        sm.put("ratios", ratios(s, limits));
      }
      List<Object> runs = new ArrayList<>();
      for (LoadRun.Result r : s.runs()) {
        runs.add(r.figures());
      }
      sm.put("runs", runs);
      if (!s.kafka().isEmpty()) {
        Map<String, Object> k = new LinkedHashMap<>();
        k.put("summary", summary(s.kafka(), KAFKA_FIGURES));
        k.put("ratios", kafkaRatios(s));
        k.put(
            "ratios_note",
            "Loam median / Kafka median; per_run: Loam run i / Kafka run i (run back to back)."
                + " Above 1: Loam has more throughput, or more latency or CPU.");
        k.put("ratios_per_run", kafkaRatiosPerRun(s));
        List<Object> kruns = new ArrayList<>();
        for (LoadRun.Result r : s.kafka()) {
          kruns.add(r.figures());
        }
        k.put("runs", kruns);
        sm.put("kafka", k);
      }
      scenarios.add(sm);
    }
    m.put("scenarios", scenarios);
    return m;
  }

  private static Map<String, Object> summary(List<LoadRun.Result> runs, String[][] figures) {
    Map<String, Object> summary = new LinkedHashMap<>();
    for (String[] f : figures) {
      double[] v = values(runs, f);
      Map<String, Object> st = new LinkedHashMap<>();
      st.put("median", median(v));
      st.put("min", Arrays.stream(v).min().orElse(Double.NaN));
      st.put("max", Arrays.stream(v).max().orElse(Double.NaN));
      summary.put(String.join(".", f), st);
    }
    return summary;
  }

  /** Loam median / Kafka median of each of {@link #RATIO_FIGURES}. */
  static Map<String, Object> kafkaRatios(ScenarioRuns s) {
    Map<String, Object> r = new LinkedHashMap<>();
    for (String[] f : RATIO_FIGURES) {
      r.put(String.join(".", f), median(values(s.runs(), f)) / median(values(s.kafka(), f)));
    }
    return r;
  }

  private static Map<String, Object> kafkaRatiosPerRun(ScenarioRuns s) {
    Map<String, Object> r = new LinkedHashMap<>();
    int n = Math.min(s.runs().size(), s.kafka().size());
    for (String[] f : RATIO_FIGURES) {
      List<Double> v = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        v.add(number(s.runs().get(i).figures(), f) / number(s.kafka().get(i).figures(), f));
      }
      r.put(String.join(".", f), v);
    }
    return r;
  }

  private static Map<String, Object> ratios(ScenarioRuns s, MachineLimits l) {
    Map<String, Object> r = new LinkedHashMap<>();
    double mbps = median(values(s, new String[] {"mb_per_s"}));
    double cpuPerGb = median(values(s, new String[] {"cpu_s_per_gb"}));
    r.put("mb_per_s_over_file_write_fsync", mbps / l.fsyncWriteMBps());
    r.put("mb_per_s_over_memcopy", mbps / (l.memcopyGBps() * 1000));
    r.put("mb_per_s_over_crc32c", mbps / (l.crc32cGBps() * 1000));
    // CRC32C costs 1/GBps core-seconds per GB: how many CRC passes the measured CPU buys.
    r.put("cpu_s_per_gb_over_crc32c_cost", cpuPerGb * l.crc32cGBps());
    r.put("cpu_s_per_gb_over_memcopy_cost", cpuPerGb * l.memcopyGBps());
    return r;
  }

  private static Map<String, Object> machine() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("cores", Runtime.getRuntime().availableProcessors());
    m.put("max_heap_mb", Runtime.getRuntime().maxMemory() / (1 << 20));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("jvm_args", ManagementFactory.getRuntimeMXBean().getInputArguments());
    m.put(
        "load_average_at_end", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    return m;
  }

  static double[] values(ScenarioRuns s, String[] path) {
    return values(s.runs(), path);
  }

  static double[] values(List<LoadRun.Result> runs, String[] path) {
    double[] v = new double[runs.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = number(runs.get(i).figures(), path);
    }
    return v;
  }

  @SuppressWarnings("unchecked")
  static double number(Map<String, Object> m, String[] path) {
    Object o = m;
    for (String p : path) {
      o = o instanceof Map<?, ?> mm ? ((Map<String, Object>) mm).get(p) : null;
    }
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  static double median(double[] v) {
    if (v.length == 0) {
      return Double.NaN;
    }
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  private static String oneLine(Map<String, Object> f) {
    return String.format(
        Locale.ROOT,
        "%.0f rec/s %.1f MB/s | ack p50 %.1f p99 %.1f p99.9 %.1f max %.1f ms | e2e p50 %.1f p99"
            + " %.1f ms | cpu %.2f s/GB %.2f us/rec (node %.2f, store %.2f, bench %.2f, jvm %.2f)"
            + " | alloc %.0f B/rec | PUT %.1f/s %.0f B/PUT, GET"
            + " %.1f/s | proposals %.1f/s | mean PUT %.1f ms, commit %.1f ms | load %.1f%s",
        number(f, new String[] {"records_per_s"}),
        number(f, new String[] {"mb_per_s"}),
        number(f, new String[] {"ack_latency_ms", "p50"}),
        number(f, new String[] {"ack_latency_ms", "p99"}),
        number(f, new String[] {"ack_latency_ms", "p99_9"}),
        number(f, new String[] {"ack_latency_ms", "max"}),
        number(f, new String[] {"e2e_latency_ms", "p50"}),
        number(f, new String[] {"e2e_latency_ms", "p99"}),
        number(f, new String[] {"cpu_s_per_gb"}),
        number(f, new String[] {"cpu_us_per_record"}),
        number(f, new String[] {"node_cpu_us_per_record"}),
        number(f, new String[] {"cpu_us_per_record_by_group", "store"}),
        number(f, new String[] {"cpu_us_per_record_by_group", "bench"}),
        number(f, new String[] {"cpu_us_per_record_by_group", "jvm"}),
        number(f, new String[] {"allocated_bytes_per_record"}),
        number(f, new String[] {"store_puts_per_s"}),
        number(f, new String[] {"store_mean_bytes_per_put"}),
        number(f, new String[] {"store_gets_per_s"}),
        number(f, new String[] {"metastore_proposals_per_s"}),
        number(f, new String[] {"mean_put_ms_whole_run"}),
        number(f, new String[] {"mean_commit_ms_whole_run"}),
        number(f, new String[] {"load_average_1m_at_end"}),
        failedNote(f));
  }

  private static String oneLineKafka(Map<String, Object> f) {
    return String.format(
        Locale.ROOT,
        "%.0f rec/s %.1f MB/s | ack p50 %.1f p99 %.1f p99.9 %.1f max %.1f ms | e2e p50 %.1f p99"
            + " %.1f ms | cpu %.2f s/GB %.2f us/rec (broker %.2f + client %.2f cores) | load"
            + " %.1f%s",
        number(f, new String[] {"records_per_s"}),
        number(f, new String[] {"mb_per_s"}),
        number(f, new String[] {"ack_latency_ms", "p50"}),
        number(f, new String[] {"ack_latency_ms", "p99"}),
        number(f, new String[] {"ack_latency_ms", "p99_9"}),
        number(f, new String[] {"ack_latency_ms", "max"}),
        number(f, new String[] {"e2e_latency_ms", "p50"}),
        number(f, new String[] {"e2e_latency_ms", "p99"}),
        number(f, new String[] {"cpu_s_per_gb"}),
        number(f, new String[] {"cpu_us_per_record"}),
        number(f, new String[] {"broker_cpu_cores_busy"}),
        number(f, new String[] {"client_cpu_cores_busy"}),
        number(f, new String[] {"load_average_1m_at_end"}),
        failedNote(f));
  }

  private static String failedNote(Map<String, Object> f) {
    long n = ((Number) f.get("appends_failed")).longValue();
    return n == 0 ? "" : " | FAILED appends " + n + ": " + f.get("first_failure");
  }

  /** The human summary: one block per scenario, median [min..max] over runs. */
  static String summaryTable(List<ScenarioRuns> all, MachineLimits limits) {
    StringBuilder b = new StringBuilder();
    for (ScenarioRuns s : all) {
      b.append(s.config().describe()).append('\n');
      b.append(String.format("  runs: %d (median [min..max])%n", s.runs().size()));
      for (String[] f : KEY_FIGURES) {
        double[] v = values(s, f);
        b.append(
            String.format(
                Locale.ROOT,
                "  %-34s %12.2f  [%.2f..%.2f]%n",
                String.join(".", f),
                median(v),
                Arrays.stream(v).min().orElse(Double.NaN),
                Arrays.stream(v).max().orElse(Double.NaN)));
      }
      if (limits != null) {
        ratios(s, limits)
            .forEach(
                (k, v) -> b.append(String.format(Locale.ROOT, "  %-34s %12.4f%n", k, (Double) v)));
      }
      if (!s.kafka().isEmpty()) {
        b.append(sideBySide(s));
      }
    }
    return b.toString();
  }

  /** Loam and Kafka of one scenario side by side, with the ratios. */
  static String sideBySide(ScenarioRuns s) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "  Loam (%s) vs Apache Kafka %s, same workload (median [min..max] over %d/%d runs;"
                + " ratio = Loam/Kafka of the medians)%n",
            s.config().transport().equals("kafka")
                ? "transport kafka: the same Kafka client code through Loam's gateway"
                : "transport " + s.config().transport(),
            KafkaBroker.VERSION,
            s.runs().size(),
            s.kafka().size()));
    boolean fsync = Boolean.TRUE.equals(s.kafka().get(0).figures().get("kafka_fsync_per_append"));
    b.append(
        fsync
            ? "  Kafka: acks=all, linger.ms=5, batch.size=1 MiB, else defaults; topic"
                + " flush.messages=1: the broker fsyncs each append before it acks, as Loam's"
                + " filesystem store fsyncs each WAL object.\n"
            : "  Kafka: acks=all, linger.ms=5, batch.size=1 MiB, else defaults; the broker does not"
                + " fsync per write (its default), Loam's filesystem store fsyncs before it acks.\n");
    b.append(
        String.format(
            Locale.ROOT, "  %-24s %-32s %-32s %10s%n", "figure", "loam", "kafka", "loam/kafka"));
    Map<String, Object> ratios = kafkaRatios(s);
    for (String[] f : KAFKA_FIGURES) {
      String name = String.join(".", f);
      Object ratio = ratios.get(name);
      boolean loamHas = Arrays.stream(KEY_FIGURES).anyMatch(k -> Arrays.equals(k, f));
      b.append(
          String.format(
              Locale.ROOT,
              "  %-24s %-32s %-32s %10s%n",
              name,
              loamHas ? spread(values(s.runs(), f)) : "-",
              spread(values(s.kafka(), f)),
              ratio == null ? "" : String.format(Locale.ROOT, "%.3f", (Double) ratio)));
    }
    return b.toString();
  }

  private static String spread(double[] v) {
    return String.format(
        Locale.ROOT,
        "%.2f [%.2f..%.2f]",
        median(v),
        Arrays.stream(v).min().orElse(Double.NaN),
        Arrays.stream(v).max().orElse(Double.NaN));
  }

  static void writeReport(Path out, Map<String, Object> report) throws IOException {
    Files.writeString(out, Json.write(report), StandardCharsets.UTF_8);
  }
}
