package dev.loam.examples;

import dev.loam.api.AppendRecord;
import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.Partitioning;
import dev.loam.api.StreamDescription;
import dev.loam.api.StreamSpec;
import dev.loam.api.WriterStats;
import dev.loam.cli.Command;
import dev.loam.cli.Flag;
import dev.loam.cli.ParsedArgs;
import dev.loam.cli.StoreUris;
import dev.loam.cli.UsageException;
import dev.loam.cli.Values;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code ./loam demo}: starts an embedded node on a data directory, appends records to {@code
 * demo/events}, reads every partition back from offset 0 and checks count, order and content of
 * every run ever made on that directory. Exits non-zero on any mismatch.
 */
public final class Demo {
  private static final int KEYS = 1000;

  private Demo() {}

  /** Parsed command-line options of the demo. */
  record Options(
      Path dataDir,
      String storeUri,
      int records,
      int partitions,
      long flushMillis,
      int recordsPerAppend,
      int maxInFlight,
      int valueBytes,
      int nodes,
      boolean killLeader) {
    static Options parse(String[] args) {
      ParsedArgs a = CMD.parse(args);
      int nodes = a.get(NODES);
      boolean killLeader = a.get(KILL_LEADER);
      if (nodes != 1 && (nodes < 3 || nodes % 2 == 0)) {
        throw new UsageException(NODES.name(), "1 or an odd count of voters 3..9, got " + nodes);
      }
      if (killLeader && nodes == 1) {
        throw new UsageException(KILL_LEADER.name(), "needs --nodes 3 or more");
      }
      Integer inFlight = a.get(IN_FLIGHT);
      return new Options(
          a.get(DATA_DIR),
          a.get(STORE),
          a.get(RECORDS),
          a.get(PARTITIONS),
          a.get(FLUSH_MS),
          a.get(RECORDS_PER_APPEND),
          // A cluster run keeps fewer appends in flight so that it lasts several flushes and a
          // leader kill lands mid-run; the single-node default is unchanged.
          inFlight != null ? inFlight : nodes == 1 ? 2048 : 256,
          a.get(VALUE_BYTES),
          nodes,
          killLeader);
    }
  }

  /** The flags of {@code loam demo}, in the order of its help. */
  public static final Command CMD =
      new Command(
          "loam demo",
          "Starts an embedded node on DIR, appends records to demo/events, reads every partition\n"
              + "back from offset 0 and checks count, order and content of every run made on DIR.\n"
              + "--nodes 3 runs a 3-node cluster in one JVM (Ratis replicas in DIR/node-i/meta).");

  static final Flag<Path> DATA_DIR =
      CMD.flag("--data-dir", "DIR", Values.path(), Path.of("loam-data"), "the demo's directory");
  static final Flag<String> STORE =
      CMD.optional(
          "--store",
          "URI",
          StoreUris.parser(false),
          "DIR/objects",
          "where the objects live: mem://, file:///dir, s3://, azblob://, gs://");
  static final Flag<Integer> RECORDS =
      CMD.flag(
          "--records", "N", Values.integer(0, Integer.MAX_VALUE), 100_000, "records to append");
  static final Flag<Integer> PARTITIONS =
      CMD.flag(
          "--partitions",
          "P",
          Values.integer(1, 10_000),
          3,
          "partitions of demo/events when the demo creates it");
  static final Flag<Long> FLUSH_MS =
      CMD.flag("--flush-ms", "MS", Values.longValue(1, 60_000), 250L, "the WAL flush interval");
  static final Flag<Integer> NODES =
      CMD.flag(
          "--nodes",
          "N",
          Values.integer(1, 9),
          1,
          "1, or an odd 3..9: a cluster of that many nodes in this JVM");
  static final Flag<Boolean> KILL_LEADER =
      CMD.toggle(
          "--kill-leader", "with --nodes: crash the metastore leader's node mid-run, restart it");
  static final Flag<Integer> RECORDS_PER_APPEND =
      CMD.flag(
          "--records-per-append",
          "N",
          Values.integer(1, 100_000),
          100,
          "records per Log.append call");
  static final Flag<Integer> IN_FLIGHT =
      CMD.optional(
          "--in-flight",
          "N",
          Values.integer(1, 1_000_000),
          "2048, or 256 with --nodes",
          "appends in flight at once; they are also bounded to half the write buffer in bytes");
  static final Flag<Integer> VALUE_BYTES =
      CMD.flag(
          "--value-bytes",
          "N",
          Values.integer(0, 1 << 20),
          100,
          "value size per record in bytes (at least the run id and sequence it carries)");

  /**
   * Parses and validates a {@code loam demo} command line as {@link #run} would, without starting
   * anything; a {@link UsageException} names the flag at fault.
   */
  public static void validate(String[] args) {
    if (!CMD.parse(args).help()) {
      Options.parse(args);
    }
  }

  /**
   * Runs the demo; returns the process exit code. A bad command line is a {@link UsageException}
   * (before anything starts); {@code --help} prints the flags and returns 0.
   */
  public static int run(String[] args) throws Exception {
    if (CMD.parse(args).help()) {
      System.out.print(CMD.help());
      return 0;
    }
    Options o = Options.parse(args);
    if (o.nodes() > 1) {
      return ClusterDemo.run(o);
    }
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(o.flushMillis()));
    try (LoamNode node =
        LoamNode.builder()
            .nodeId("demo-node")
            .dataDir(o.dataDir())
            .storeUri(o.storeUri())
            .settings(settings)
            .start()) {
      Log log = node.log();
      StreamDescription d = ensureStream(log, o.partitions());
      int partitions = d.spec().partitions();
      long before = d.partitions().stream().mapToLong(p -> p.highWatermark()).sum();
      String run = Long.toString(System.currentTimeMillis(), 36);
      System.out.printf(
          "loam demo: data-dir=%s store=%s stream=demo/events partitions=%d records-before=%d"
              + " flush=%dms%n",
          o.dataDir().toAbsolutePath(),
          // The query may carry credentials: never print it.
          o.storeUri() == null
              ? o.dataDir().resolve("objects").toUri()
              : o.storeUri().replaceFirst("\\?.*$", "?…"),
          partitions,
          before,
          o.flushMillis());

      long[] latencies = new long[(o.records() + o.recordsPerAppend() - 1) / o.recordsPerAppend()];
      long appendStart = System.nanoTime();
      long payloadBytes = append(log, o, run, latencies, inFlightBytes(settings), partitions);
      Summary s = Summary.of(latencies, payloadBytes, o.records(), System.nanoTime() - appendStart);
      WriterStats ws = node.writerStats();
      System.out.printf(
          "appended %d records (%.1f MB) in %.2f s: %.0f records/s, %.2f MB/s; ack latency per"
              + " append of %d records p50=%.1f ms p99=%.1f ms max=%.1f ms%n",
          o.records(),
          payloadBytes / 1e6,
          s.seconds(),
          s.recordsPerSecond(),
          s.megabytesPerSecond(),
          o.recordsPerAppend(),
          s.p50Millis(),
          s.p99Millis(),
          s.maxMillis());
      System.out.printf(
          "write path: %d WAL objects, %.1f batches/object, mean PUT %.2f ms, mean commit %.2f ms%n",
          ws.flushes(), ws.meanBatchesPerFlush(), ws.meanPutMillis(), ws.meanCommitMillis());

      long readStart = System.nanoTime();
      Verification v = readBack(log, partitions);
      double readSeconds = (System.nanoTime() - readStart) / 1e9;
      long expected = before + o.records();
      System.out.printf(
          "read back %d records from %d partitions in %.2f s (%.0f records/s); runs on this"
              + " directory: %d%n",
          v.total(), partitions, readSeconds, v.total() / Math.max(readSeconds, 1e-9), v.runs());
      List<String> problems = new ArrayList<>(v.problems());
      if (v.total() != expected) {
        problems.add("expected " + expected + " records, read " + v.total());
      }
      Integer thisRun = v.countsByRun().get(run);
      if (o.records() > 0 && (thisRun == null || thisRun != o.records())) {
        problems.add("this run appended " + o.records() + " records, read back " + thisRun);
      }
      if (!problems.isEmpty()) {
        problems.stream().limit(20).forEach(p -> System.out.println("MISMATCH: " + p));
        return 1;
      }
      System.out.println("OK: every record read back in order with its content");
      return 0;
    }
  }

  static StreamDescription ensureStream(Log log, int partitions) {
    log.createNamespaceIfAbsent("demo").join();
    return log.createStreamIfAbsent("demo", "events", StreamSpec.standard(partitions)).join();
  }

  static String value(String run, int seq, int valueBytes) {
    StringBuilder b = new StringBuilder();
    b.append("{\"run\":\"").append(run).append("\",\"seq\":").append(seq).append(",\"pad\":\"");
    int pad = Math.max(0, valueBytes - b.length() - 2);
    for (int i = 0; i < pad; i++) {
      b.append((char) ('a' + (seq + i) % 26));
    }
    return b.append("\"}").toString();
  }

  /**
   * The bytes of appends the demo keeps in flight: half the node's write buffer, so that appends
   * wait for acknowledgements (backpressure) instead of overflowing the buffer when the store is
   * slow. The other half leaves room for the encoding's overhead beyond {@link #cost}.
   */
  static long inFlightBytes(NodeSettings settings) {
    return Math.max(1, settings.maxBufferedBytes() / 2);
  }

  /**
   * What one append of {@code n} records with {@code payload} key and value bytes takes in the
   * write buffer, at most: the payload, each record's framing (length, attributes, deltas, header
   * count: under 32 bytes) and one batch header per partition it reaches (61 bytes, on at most
   * {@code partitions} partitions).
   */
  static long cost(long payload, int n, int partitions) {
    return payload + 32L * n + 64L * Math.min(n, partitions);
  }

  private static long append(
      Log log, Options o, String run, long[] latencies, long maxBytes, int partitions)
      throws Exception {
    Semaphore window = new Semaphore(o.maxInFlight());
    int budget = (int) Math.min(Integer.MAX_VALUE, maxBytes);
    Semaphore bytesWindow = new Semaphore(budget);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<CompletableFuture<AppendResult>> all = new ArrayList<>();
    long bytes = 0;
    int call = 0;
    for (int i = 0; i < o.records(); i += o.recordsPerAppend()) {
      int n = Math.min(o.recordsPerAppend(), o.records() - i);
      List<AppendRecord> batch = new ArrayList<>(n);
      long payload = 0;
      for (int j = i; j < i + n; j++) {
        String key = "key-" + (j % KEYS);
        String value = value(run, j, o.valueBytes());
        payload += key.length() + value.length();
        batch.add(AppendRecord.of(key, value));
      }
      bytes += payload;
      // An append larger than the whole budget waits until nothing else is in flight.
      int permits = (int) Math.min(budget, cost(payload, n, partitions));
      window.acquire();
      bytesWindow.acquire(permits);
      if (failure.get() != null) {
        break;
      }
      long t0 = System.nanoTime();
      int slot = call++;
      CompletableFuture<AppendResult> f = log.append("demo", "events", batch);
      f.whenComplete(
          (r, e) -> {
            latencies[slot] = System.nanoTime() - t0;
            if (e != null) {
              failure.compareAndSet(null, e);
            }
            bytesWindow.release(permits);
            window.release();
          });
      all.add(f);
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
    if (failure.get() != null) {
      throw new IllegalStateException("append failed", failure.get());
    }
    return bytes;
  }

  /** What reading everything back found. */
  record Verification(
      long total, int runs, Map<String, Integer> countsByRun, List<String> problems) {}

  static Verification readBack(Log log, int partitions) {
    return readBack(log, partitions, (run, seq) -> {});
  }

  /** Reads every partition back; {@code seen} gets the run and sequence number of each record. */
  static Verification readBack(
      Log log, int partitions, java.util.function.ObjIntConsumer<String> seen) {
    Map<String, Integer> counts = new HashMap<>();
    Map<String, int[]> lastSeq = new HashMap<>();
    List<String> problems = new ArrayList<>();
    long total = 0;
    for (int p = 0; p < partitions; p++) {
      long offset = 0;
      while (true) {
        FetchResult r = log.fetch("demo", "events", p, offset, 4 << 20, Duration.ZERO).join();
        if (r.records().isEmpty()) {
          break;
        }
        for (FetchedRecord rec : r.records()) {
          if (rec.offset() != offset) {
            problems.add("partition " + p + " expected offset " + offset + " got " + rec.offset());
          }
          offset = rec.offset() + 1;
          total++;
          check(rec, p, partitions, counts, lastSeq, problems, seen);
        }
        offset = r.nextOffset();
      }
    }
    return new Verification(total, counts.size(), counts, problems);
  }

  private static void check(
      FetchedRecord rec,
      int p,
      int partitions,
      Map<String, Integer> counts,
      Map<String, int[]> lastSeq,
      List<String> problems,
      java.util.function.ObjIntConsumer<String> seen) {
    String v = rec.valueAsString();
    int r0 = v.indexOf("\"run\":\"") + 7;
    int r1 = v.indexOf('"', r0);
    int s0 = v.indexOf("\"seq\":") + 6;
    int s1 = v.indexOf(',', s0);
    if (r0 < 7 || r1 < 0 || s0 < 6 || s1 < 0) {
      problems.add("unparseable value at partition " + p + " offset " + rec.offset());
      return;
    }
    String run = v.substring(r0, r1);
    int seq = Integer.parseInt(v.substring(s0, s1));
    String key = "key-" + (seq % KEYS);
    if (!key.equals(rec.keyAsString())) {
      problems.add("wrong key at partition " + p + " offset " + rec.offset());
    }
    if (Partitioning.partitionForKey(key.getBytes(StandardCharsets.UTF_8), partitions) != p) {
      problems.add("key " + key + " in the wrong partition " + p);
    }
    if (!v.equals(value(run, seq, v.length()))) {
      problems.add("content differs at partition " + p + " offset " + rec.offset());
    }
    counts.merge(run, 1, Integer::sum);
    seen.accept(run, seq);
    int[] last = lastSeq.computeIfAbsent(run, k -> new int[partitions]);
    if (last[p] != 0 && seq <= last[p] - 1) {
      problems.add("order broken in run " + run + " partition " + p + " at offset " + rec.offset());
    }
    last[p] = seq + 1;
  }

  /** Throughput and latency figures of one run. */
  record Summary(
      double seconds,
      double recordsPerSecond,
      double megabytesPerSecond,
      double p50Millis,
      double p99Millis,
      double maxMillis) {
    static Summary of(long[] latencies, long bytes, int records, long elapsedNanos) {
      long[] sorted = latencies.clone();
      Arrays.sort(sorted);
      double secs = elapsedNanos / 1e9;
      return new Summary(
          secs,
          records / Math.max(secs, 1e-9),
          bytes / 1e6 / Math.max(secs, 1e-9),
          percentile(sorted, 0.50) / 1e6,
          percentile(sorted, 0.99) / 1e6,
          sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1e6);
    }

    private static double percentile(long[] sorted, double q) {
      if (sorted.length == 0) {
        return 0;
      }
      int i = (int) Math.ceil(q * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }
  }
}
