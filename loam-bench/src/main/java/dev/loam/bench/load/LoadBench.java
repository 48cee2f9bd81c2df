package dev.loam.bench.load;

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
 * {@code ./loam bench}: Loam's end-to-end load generator (issue 9). Runs each scenario {@code
 * --runs} times (interleaved), prints a summary and writes a JSON report and an SVG plot of the
 * latency percentile distributions. See {@link BenchConfig#HELP} for the options.
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
    {"allocated_bytes_per_record"},
    {"store_puts_per_s"},
    {"store_gets_per_s"},
    {"store_mean_bytes_per_put"},
    {"metastore_proposals_per_s"},
    {"wal_objects_per_s"},
    {"mean_put_ms_whole_run"},
    {"mean_commit_ms_whole_run"},
  };

  /** All runs of one scenario. */
  record ScenarioRuns(BenchConfig config, List<LoadRun.Result> runs) {}

  public static void main(String[] args) throws Exception {
    System.exit(run(args));
  }

  /** Runs the bench; returns the exit code. */
  public static int run(String[] args) throws Exception {
    BenchConfig.Options o;
    try {
      o = BenchConfig.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("loam bench: " + e.getMessage());
      return 2;
    }
    if (o.help()) {
      System.out.print(BenchConfig.HELP);
      return 0;
    }
    if (o.vsKafka()) {
      System.err.println(
          "loam bench: --vs-kafka is not implemented in this round (see docs/performance.md)");
      return 2;
    }
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
    // Interleave: run 1 of every scenario, then run 2, ... so drift hits all of them alike.
    for (int r = 1; r <= o.runs(); r++) {
      for (ScenarioRuns s : all) {
        System.out.printf("run %d/%d %s%n", r, o.runs(), s.config().describe());
        LoadRun.Result res = new LoadRun(s.config()).run();
        s.runs().add(res);
        System.out.println("  " + oneLine(res.figures()));
      }
    }
    Map<String, Object> report = report(o, all, limits, stamp);
    System.out.println();
    System.out.print(summaryTable(all, limits));
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.writeString(out, Json.write(report), StandardCharsets.UTF_8);
    Path svg = svgPath(out);
    List<SvgPlot.Series> series = new ArrayList<>();
    for (ScenarioRuns s : all) {
      series.add(new SvgPlot.Series(s.config().name(), merged(s, true), merged(s, false)));
    }
    Files.writeString(
        svg,
        SvgPlot.render("Loam ack latency by percentile (" + stamp + ")", series),
        StandardCharsets.UTF_8);
    System.out.println("wrote " + out + " and " + svg);
    boolean failed = all.stream().anyMatch(s -> s.runs().stream().anyMatch(LoadBench::failed));
    return failed ? 1 : 0;
  }

  private static boolean failed(LoadRun.Result r) {
    return ((Number) r.figures().get("appends_failed")).longValue() > 0;
  }

  static Path svgPath(Path json) {
    String n = json.getFileName().toString();
    String base = n.endsWith(".json") ? n.substring(0, n.length() - 5) : n;
    return json.resolveSibling(base + ".svg");
  }

  private static Histogram merged(ScenarioRuns s, boolean ack) {
    Histogram h = new Histogram(600_000_000L, 3);
    for (LoadRun.Result r : s.runs()) {
      h.add(ack ? r.ack() : r.e2e());
    }
    return h;
  }

  /** The JSON report. */
  static Map<String, Object> report(
      BenchConfig.Options o, List<ScenarioRuns> all, MachineLimits limits, String stamp) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tool", "loam bench");
    m.put("timestamp", stamp);
    m.put("machine", machine());
    m.put("runs_per_scenario", o.runs());
    m.put("limits", limits == null ? null : limits.toJson());
    List<Object> scenarios = new ArrayList<>();
    for (ScenarioRuns s : all) {
      Map<String, Object> sm = new LinkedHashMap<>();
      sm.put("config", s.config().toJson());
      Map<String, Object> summary = new LinkedHashMap<>();
      for (String[] f : KEY_FIGURES) {
        double[] v = values(s, f);
        Map<String, Object> st = new LinkedHashMap<>();
        st.put("median", median(v));
        st.put("min", Arrays.stream(v).min().orElse(Double.NaN));
        st.put("max", Arrays.stream(v).max().orElse(Double.NaN));
        summary.put(String.join(".", f), st);
      }
      sm.put("summary", summary);
      if (limits != null) {
        sm.put("ratios", ratios(s, limits));
      }
      List<Object> runs = new ArrayList<>();
      for (LoadRun.Result r : s.runs()) {
        runs.add(r.figures());
      }
      sm.put("runs", runs);
      scenarios.add(sm);
    }
    m.put("scenarios", scenarios);
    return m;
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
    double[] v = new double[s.runs().size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = number(s.runs().get(i).figures(), path);
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
            + " %.1f ms | cpu %.2f s/GB %.2f us/rec | alloc %.0f B/rec | PUT %.1f/s %.0f B/PUT, GET"
            + " %.1f/s | proposals %.1f/s | mean PUT %.1f ms, commit %.1f ms%s",
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
        number(f, new String[] {"allocated_bytes_per_record"}),
        number(f, new String[] {"store_puts_per_s"}),
        number(f, new String[] {"store_mean_bytes_per_put"}),
        number(f, new String[] {"store_gets_per_s"}),
        number(f, new String[] {"metastore_proposals_per_s"}),
        number(f, new String[] {"mean_put_ms_whole_run"}),
        number(f, new String[] {"mean_commit_ms_whole_run"}),
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
    }
    return b.toString();
  }

  static void writeReport(Path out, Map<String, Object> report) throws IOException {
    Files.writeString(out, Json.write(report), StandardCharsets.UTF_8);
  }
}
