package dev.loam.sim.runner;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs many simulation seeds in parallel processes within a time budget and writes a summary
 * (docs/design/simulation.md "Seeds at scale"):
 *
 * <pre>
 * java -cp loam-sim/target/classes:loam-sim/target/lib/* dev.loam.sim.runner.SimRunner \
 *     --seeds 10000 --workers 2 --budget 30m --out target/sim-summary.json
 * ./loam sim --seeds 10000 --workers 1 --budget 60m
 * </pre>
 *
 * Each of the {@code --workers} processes (a JVM on this class path) runs every {@code workers}-th
 * seed of {@code [first, first + seeds)} ({@link SeedWorker}); when the budget is over the workers
 * are stopped and the summary covers the seeds that finished. The summary ({@link SimSummary}) is
 * printed, written as JSON to {@code --out} and as text next to it ({@code .txt}); every seed's
 * result line goes to {@code .seeds.tsv} as it arrives, and failing seeds' reports to {@code
 * sim-failures/} beside it. The exit status is 0 when no seed failed, 1 when some did, 2 for bad
 * arguments.
 *
 * <p>This runner is outside the simulated world: it reads the wall clock and starts processes, and
 * every seed still runs deterministically inside its worker.
 */
public final class SimRunner {
  /** What to run, from the command line. */
  record Options(long first, long seeds, int workers, Duration budget, Path out) {}

  private SimRunner() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--worker")) {
      worker(args);
      return;
    }
    if (List.of(args).contains("--help") || List.of(args).contains("-h")) {
      System.out.println(usage());
      return;
    }
    Options o;
    try {
      o = parse(args, Runtime.getRuntime().availableProcessors());
    } catch (IllegalArgumentException e) {
      System.err.println("sim: " + e.getMessage());
      System.err.println(usage());
      System.exit(2);
      return;
    }
    SimSummary s = run(o);
    System.exit(s.failures().isEmpty() && s.workerErrors().isEmpty() ? 0 : 1);
  }

  static String usage() {
    return "usage: sim [--seeds N (1000)] [--first SEED (1)] [--workers N (cores)]"
        + " [--budget 30m|90s|2h (30m)] [--out FILE.json (target/sim-summary.json)]";
  }

  /** Parses the options; a bad one is an IllegalArgumentException naming it. */
  static Options parse(String[] args, int cores) {
    long first = 1;
    long seeds = 1000;
    int workers = Math.max(1, cores);
    Duration budget = Duration.ofMinutes(30);
    Path out = Path.of("target", "sim-summary.json");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(a + " needs a value (or is not an option)");
      }
      String v = args[++i];
      switch (a) {
        case "--seeds" -> seeds = positive(a, v);
        case "--first" -> first = number(a, v);
        case "--workers" -> workers = (int) Math.min(positive(a, v), 256);
        case "--budget" -> budget = duration(a, v);
        case "--out" -> out = Path.of(v);
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
    }
    return new Options(first, seeds, (int) Math.min(workers, seeds), budget, out);
  }

  private static long number(String option, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a whole number, got '" + v + "'");
    }
  }

  private static long positive(String option, String v) {
    long n = number(option, v);
    if (n < 1) {
      throw new IllegalArgumentException(option + " must be at least 1, got " + n);
    }
    return n;
  }

  /** {@code 90s}, {@code 30m}, {@code 2h}, or ISO-8601 ({@code PT30M}). */
  static Duration duration(String option, String v) {
    try {
      if (v.startsWith("P") || v.startsWith("p")) {
        return positiveDuration(option, Duration.parse(v));
      }
      char unit = v.isEmpty() ? ' ' : v.charAt(v.length() - 1);
      long n = Long.parseLong(v.substring(0, Math.max(0, v.length() - 1)));
      Duration d =
          switch (unit) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw new NumberFormatException();
          };
      return positiveDuration(option, d);
    } catch (NumberFormatException | java.time.format.DateTimeParseException e) {
      throw new IllegalArgumentException(
          option + " must be a duration like 90s, 30m or 2h, got '" + v + "'");
    }
  }

  private static Duration positiveDuration(String option, Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(option + " must be positive, got " + d);
    }
    return d;
  }

  private static void worker(String[] args) throws IOException {
    // --worker FIRST COUNT STRIDE OFFSET FAILURES_DIR
    SeedWorker.run(
        Long.parseLong(args[1]),
        Long.parseLong(args[2]),
        Integer.parseInt(args[3]),
        Integer.parseInt(args[4]),
        Path.of(args[5]),
        System.out);
  }

  /** Runs the seeds of {@code o} in worker processes, writes the summary, returns it. */
  static SimSummary run(Options o) throws IOException, InterruptedException {
    Path dir = o.out().toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path failures = dir.resolve("sim-failures");
    Path logs = dir.resolve("sim-workers");
    Files.createDirectories(logs);
    SimSummary summary = new SimSummary(o.first(), o.seeds(), o.workers(), format(o.budget()));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    long start = System.nanoTime();
    long deadline = start + o.budget().toNanos();
    // Every result line as it arrives, so a run stopped from outside still leaves its seeds.
    Path lines = o.out().resolveSibling(stem(o.out()) + ".seeds.tsv");
    java.io.PrintStream results =
        new java.io.PrintStream(Files.newOutputStream(lines), true, StandardCharsets.UTF_8);
    List<Process> procs = new ArrayList<>();
    List<Thread> readers = new ArrayList<>();
    for (int w = 0; w < o.workers(); w++) {
      ProcessBuilder pb =
          new ProcessBuilder(
              java,
              "-XX:+UseSerialGC",
              // Only errors from the nodes' loggers, should the class path carry slf4j-simple.
              "-Dorg.slf4j.simpleLogger.defaultLogLevel=error",
              "-cp",
              System.getProperty("java.class.path"),
              SimRunner.class.getName(),
              "--worker",
              Long.toString(o.first()),
              Long.toString(o.seeds()),
              Integer.toString(o.workers()),
              Integer.toString(w),
              failures.toString());
      pb.redirectError(logs.resolve("worker-" + w + ".log").toFile());
      Process p = pb.start();
      procs.add(p);
      int id = w;
      Thread t = new Thread(() -> read(p, id, summary, results), "sim-worker-" + w);
      t.start();
      readers.add(t);
    }
    boolean exhausted = false;
    for (Process p : procs) {
      long left = deadline - System.nanoTime();
      if (exhausted || left <= 0 || !p.waitFor(left, TimeUnit.NANOSECONDS)) {
        exhausted = true;
        p.destroy();
      }
    }
    for (Process p : procs) {
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
      }
    }
    for (Thread t : readers) {
      t.join(TimeUnit.SECONDS.toMillis(10));
    }
    for (int w = 0; w < procs.size(); w++) {
      Process p = procs.get(w);
      if (!exhausted && p.exitValue() != 0) {
        summary.workerError(
            "worker "
                + w
                + " exited "
                + p.exitValue()
                + " (see "
                + logs
                + "/worker-"
                + w
                + ".log)");
      }
    }
    results.close();
    summary.finish((System.nanoTime() - start) / 1_000_000, exhausted);
    String text = summary.text();
    System.out.print(text);
    Files.writeString(o.out(), summary.json(), StandardCharsets.UTF_8);
    Path txt = o.out().resolveSibling(stem(o.out()) + ".txt");
    Files.writeString(txt, text, StandardCharsets.UTF_8);
    System.out.println("summary: " + o.out() + " and " + txt + " (per seed: " + lines + ")");
    return summary;
  }

  /** The file name without its {@code .json}. */
  private static String stem(Path out) {
    String name = out.getFileName().toString();
    return name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
  }

  private static void read(Process p, int worker, SimSummary summary, java.io.PrintStream results) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (summary.add(line)) {
          synchronized (results) {
            results.println(line);
          }
          summary.progress(System.err);
        } else if (!line.isBlank()) {
          // Anything else a worker prints (a library's warning) is not a result; keep it visible.
          System.err.println("worker " + worker + ": " + line);
        }
      }
    } catch (IOException e) {
      summary.workerError("worker " + worker + " output: " + e);
    }
  }

  private static String format(Duration d) {
    long s = d.toSeconds();
    return s % 3600 == 0 ? s / 3600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
  }
}
