package dev.loam.bench.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loam.api.LoamNode;
import dev.loam.api.NodeSettings;
import dev.loam.http.LoamHttpServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * HTTP API benchmark: produce throughput (1 KiB UTF-8 values, batches of 100), fetch throughput
 * (max_bytes=1 MiB) and long-poll wake latency, against a {@link LoamNode} on a temporary directory
 * (filesystem store, embedded metastore) and a {@link LoamHttpServer} on an ephemeral loopback
 * port, driven by the JDK {@link HttpClient} over HTTP/1.1.
 *
 * <p>A main, not a test; after {@code mvn -B -pl loam-bench -am package -DskipTests}, run {@code
 * java -cp 'loam-bench/target/classes:loam-bench/target/lib/*' dev.loam.bench.http.HttpBench}.
 * Options (defaults): {@code --flush-ms 5 --duration-s 10 --warmup-s 3 --concurrency 8 --partitions
 * 4 --batch 100 --value-bytes 1024 --wake-samples 200 --wake-warmup 20 --io-threads 2}. {@code
 * --concurrency} is the number of requests in flight (each on its own keep-alive connection,
 * HTTP/1.1 has no multiplexing).
 */
public final class HttpBench {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final double MB = 1_000_000.0;

  private final Map<String, Integer> opts = new LinkedHashMap<>();
  private final HttpClient client;
  private final ExecutorService clientExecutor;
  private final String base;

  private HttpBench(Map<String, Integer> opts, int port) {
    this.opts.putAll(opts);
    this.clientExecutor = Executors.newCachedThreadPool();
    this.client =
        HttpClient.newBuilder()
            .executor(clientExecutor)
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    this.base = "http://127.0.0.1:" + port;
  }

  private int opt(String name) {
    return opts.get(name);
  }

  public static void main(String[] args) throws Exception {
    Map<String, Integer> o = new LinkedHashMap<>();
    o.put("flush-ms", 5);
    o.put("duration-s", 10);
    o.put("warmup-s", 3);
    o.put("concurrency", 8);
    o.put("partitions", 4);
    o.put("batch", 100);
    o.put("value-bytes", 1024);
    o.put("wake-samples", 200);
    o.put("wake-warmup", 20);
    o.put("io-threads", 2);
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || !o.containsKey(a.substring(2)) || i + 1 >= args.length) {
        System.err.println("unknown or incomplete option " + a + "; options: " + o.keySet());
        System.exit(2);
      }
      o.put(a.substring(2), Integer.parseInt(args[++i]));
    }
    StringBuilder cmd =
        new StringBuilder(
            "java -cp 'loam-bench/target/classes:loam-bench/target/lib/*'"
                + " dev.loam.bench.http.HttpBench");
    o.forEach((k, v) -> cmd.append(" --").append(k).append(' ').append(v));
    System.out.println("command: " + cmd);
    System.out.printf(
        "machine: %d cores (availableProcessors), java %s, max heap %d MiB%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        Runtime.getRuntime().maxMemory() >> 20);

    Path dir = Files.createTempDirectory("loam-http-bench");
    NodeSettings settings =
        NodeSettings.defaults().withFlushInterval(Duration.ofMillis(o.get("flush-ms")));
    List<String[]> rows = new ArrayList<>();
    try (LoamNode node =
            LoamNode.builder().nodeId("bench").dataDir(dir).settings(settings).start();
        LoamHttpServer server =
            LoamHttpServer.builder()
                .node(node)
                .port(0)
                .ioThreads(o.get("io-threads"))
                .maxFetchWait(Duration.ofSeconds(30))
                .start()) {
      HttpBench b = new HttpBench(o, server.port());
      try {
        b.setUp();
        long[] produced = b.produce(rows);
        b.fetch(rows, produced);
        b.wake(rows, server);
      } finally {
        b.clientExecutor.shutdownNow();
      }
    } finally {
      deleteTree(dir);
    }
    System.out.println();
    System.out.printf("%-34s %14s  %s%n", "metric", "value", "note");
    System.out.println("-".repeat(90));
    for (String[] r : rows) {
      System.out.printf("%-34s %14s  %s%n", r[0], r[1], r[2]);
    }
  }

  private void setUp() {
    check(post("/v1/namespaces", "{\"name\":\"bench\"}"), 201);
    check(
        post(
            "/v1/namespaces/bench/streams",
            "{\"name\":\"tput\",\"partitions\":" + opt("partitions") + "}"),
        201);
    check(post("/v1/namespaces/bench/streams", "{\"name\":\"wake\",\"partitions\":1}"), 201);
  }

  /** Produce phase; answers the records appended per partition (warm-up included). */
  private long[] produce(List<String[]> rows) throws Exception {
    int partitions = opt("partitions");
    int batch = opt("batch");
    int valueBytes = opt("value-bytes");
    int concurrency = opt("concurrency");
    byte[][] bodies = new byte[partitions][];
    for (int p = 0; p < partitions; p++) {
      StringBuilder sb = new StringBuilder("{\"records\":[");
      for (int i = 0; i < batch; i++) {
        if (i > 0) {
          sb.append(',');
        }
        // 1 KiB of ASCII (so 1 KiB of UTF-8), different per record.
        String v = String.format("%08d-", i) + "x".repeat(valueBytes - 9);
        sb.append("{\"value\":\"").append(v).append("\",\"partition\":").append(p).append('}');
      }
      bodies[p] = sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }
    URI uri = URI.create(base + "/v1/namespaces/bench/streams/tput/records");
    long start = System.nanoTime();
    long measureFrom = start + TimeUnit.SECONDS.toNanos(opt("warmup-s"));
    long measureTo = measureFrom + TimeUnit.SECONDS.toNanos(opt("duration-s"));
    AtomicLong measuredRequests = new AtomicLong();
    AtomicLong unavailable = new AtomicLong();
    AtomicLong[] perPartition = new AtomicLong[partitions];
    for (int p = 0; p < partitions; p++) {
      perPartition[p] = new AtomicLong();
    }
    List<long[]> latencies = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < concurrency; t++) {
      long[] lat = new long[1 << 20];
      latencies.add(lat);
      int id = t;
      Thread th =
          new Thread(
              () -> {
                int n = 0;
                int p = id % partitions;
                while (true) {
                  long t0 = System.nanoTime();
                  if (t0 >= measureTo) {
                    break;
                  }
                  HttpRequest r =
                      HttpRequest.newBuilder(uri)
                          .timeout(Duration.ofSeconds(60))
                          .header("content-type", "application/json")
                          .POST(HttpRequest.BodyPublishers.ofByteArray(bodies[p]))
                          .build();
                  HttpResponse<String> resp = send(r);
                  long t1 = System.nanoTime();
                  if (resp.statusCode() == 503) {
                    unavailable.incrementAndGet();
                    sleep(5);
                    continue;
                  }
                  check(resp, 200);
                  perPartition[p].addAndGet(batch);
                  if (t0 >= measureFrom && t1 <= measureTo) {
                    measuredRequests.incrementAndGet();
                    if (n < lat.length) {
                      lat[n++] = t1 - t0;
                    }
                  }
                  p = (p + 1) % partitions;
                }
                lat[lat.length - 1] = n; // count stored in the last slot
              },
              "produce-" + t);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    List<Long> all = new ArrayList<>();
    for (long[] lat : latencies) {
      int n = (int) lat[lat.length - 1];
      for (int i = 0; i < n; i++) {
        all.add(lat[i]);
      }
    }
    long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
    double secs = opt("duration-s");
    double recs = measuredRequests.get() * (double) batch;
    rows.add(
        new String[] {
          "produce records/s",
          String.format("%.0f", recs / secs),
          concurrency + " requests in flight, " + batch + " x " + valueBytes + " B per request"
        });
    rows.add(
        new String[] {
          "produce MB/s (values)",
          String.format("%.1f", recs * valueBytes / secs / MB),
          "MB = 10^6 bytes of record values"
        });
    rows.add(
        new String[] {
          "produce request latency p50 ms", ms(pct(sorted, 0.50)), sorted.length + " requests"
        });
    rows.add(new String[] {"produce request latency p99 ms", ms(pct(sorted, 0.99)), ""});
    rows.add(
        new String[] {
          "produce 503 (backpressure)", Long.toString(unavailable.get()), "retried after 5 ms"
        });
    long[] counts = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      counts[p] = perPartition[p].get();
    }
    return counts;
  }

  /** Fetch phase: reads every partition from offset 0 to its end, one reader per partition. */
  private void fetch(List<String[]> rows, long[] produced) throws Exception {
    int partitions = produced.length;
    // Validate one response fully (values come back as written).
    HttpResponse<String> first =
        send(
            HttpRequest.newBuilder(
                    URI.create(
                        base
                            + "/v1/namespaces/bench/streams/tput/partitions/0/records?offset=0"
                            + "&max_bytes=65536"))
                .GET()
                .build());
    check(first, 200);
    JsonNode firstBody = JSON.readTree(first.body());
    String v0 = firstBody.path("records").get(0).path("value").asText();
    if (v0.length() != opt("value-bytes") || !v0.startsWith("00000000-")) {
      throw new IllegalStateException("unexpected value " + v0.substring(0, 20));
    }
    AtomicLong records = new AtomicLong();
    AtomicLong wireBytes = new AtomicLong();
    AtomicLong requests = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int p = 0; p < partitions; p++) {
      int part = p;
      long end = produced[p];
      Thread th =
          new Thread(
              () -> {
                long offset = 0;
                while (offset < end) {
                  HttpRequest r =
                      HttpRequest.newBuilder(
                              URI.create(
                                  base
                                      + "/v1/namespaces/bench/streams/tput/partitions/"
                                      + part
                                      + "/records?offset="
                                      + offset
                                      + "&max_bytes=1048576"))
                          .timeout(Duration.ofSeconds(60))
                          .GET()
                          .build();
                  HttpResponse<byte[]> resp = sendBytes(r);
                  if (resp.statusCode() != 200) {
                    throw new IllegalStateException(
                        "fetch " + resp.statusCode() + " " + new String(resp.body()));
                  }
                  long next =
                      Long.parseLong(resp.headers().firstValue("Loam-Next-Offset").orElseThrow());
                  if (next <= offset) {
                    throw new IllegalStateException("no progress at offset " + offset);
                  }
                  records.addAndGet(next - offset);
                  wireBytes.addAndGet(resp.body().length);
                  requests.incrementAndGet();
                  offset = next;
                }
              },
              "fetch-" + p);
      threads.add(th);
      th.start();
    }
    for (Thread th : threads) {
      th.join();
    }
    double secs = (System.nanoTime() - start) / 1e9;
    long expected = Arrays.stream(produced).sum();
    if (records.get() != expected) {
      throw new IllegalStateException("fetched " + records.get() + " of " + expected);
    }
    rows.add(
        new String[] {
          "fetch records/s",
          String.format("%.0f", records.get() / secs),
          String.format(
              "%d records, %d requests, %d readers, %.2f s",
              records.get(), requests.get(), partitions, secs)
        });
    rows.add(
        new String[] {
          "fetch MB/s (values)",
          String.format("%.1f", records.get() * (double) opt("value-bytes") / secs / MB),
          String.format("wire (JSON bodies): %.1f MB/s", wireBytes.get() / secs / MB)
        });
  }

  /** Long-poll wake latency: a waiting fetch at the high watermark, then a one-record produce. */
  private void wake(List<String[]> rows, LoamHttpServer server) throws Exception {
    int samples = opt("wake-samples");
    int warm = opt("wake-warmup");
    String body =
        "{\"records\":[{\"value\":\"" + "w".repeat(opt("value-bytes")) + "\",\"partition\":0}]}";
    URI produceUri = URI.create(base + "/v1/namespaces/bench/streams/wake/records");
    long[] fromSend = new long[samples];
    long[] fromCommit = new long[samples];
    long[] produceLat = new long[samples];
    long offset = 0;
    int earlier = 0;
    for (int i = 0; i < warm + samples; i++) {
      while (server.longPollsInFlight() != 0) {
        Thread.onSpinWait();
      }
      HttpRequest fr =
          HttpRequest.newBuilder(
                  URI.create(
                      base
                          + "/v1/namespaces/bench/streams/wake/partitions/0/records?offset="
                          + offset
                          + "&max_wait_ms=30000"))
              .timeout(Duration.ofSeconds(60))
              .GET()
              .build();
      long[] arrived = new long[1];
      CompletableFuture<HttpResponse<String>> f =
          client
              .sendAsync(fr, HttpResponse.BodyHandlers.ofString())
              .whenComplete((r, e) -> arrived[0] = System.nanoTime());
      // Wait until the server holds the fetch (it counts itself before asking the node).
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (server.longPollsInFlight() < 1) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("long-poll never started");
        }
        Thread.onSpinWait();
      }
      sleep(2);
      if (f.isDone()) {
        throw new IllegalStateException("long-poll answered before the produce: " + f.get());
      }
      long t0 = System.nanoTime();
      HttpResponse<String> pr =
          send(
              HttpRequest.newBuilder(produceUri)
                  .timeout(Duration.ofSeconds(60))
                  .header("content-type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build());
      long t1 = System.nanoTime();
      check(pr, 200);
      HttpResponse<String> resp = f.get(60, TimeUnit.SECONDS);
      check(resp, 200);
      long next = Long.parseLong(resp.headers().firstValue("Loam-Next-Offset").orElseThrow());
      if (next != offset + 1) {
        throw new IllegalStateException("woke with next_offset " + next + " at " + offset);
      }
      offset = next;
      if (i >= warm) {
        int k = i - warm;
        fromSend[k] = arrived[0] - t0;
        fromCommit[k] = arrived[0] - t1;
        produceLat[k] = t1 - t0;
        if (arrived[0] < t1) {
          earlier++;
        }
      }
    }
    Arrays.sort(fromSend);
    Arrays.sort(fromCommit);
    Arrays.sort(produceLat);
    rows.add(
        new String[] {
          "wake: produce send->fetch p50 ms", ms(pct(fromSend, 0.5)), samples + " samples"
        });
    rows.add(new String[] {"wake: produce send->fetch p99 ms", ms(pct(fromSend, 0.99)), ""});
    rows.add(
        new String[] {
          "wake: commit->fetch p50 ms",
          ms(pct(fromCommit, 0.5)),
          "commit = produce response received; negative = fetch answered first"
        });
    rows.add(
        new String[] {
          "wake: commit->fetch p99 ms",
          ms(pct(fromCommit, 0.99)),
          earlier + "/" + samples + " fetches arrived before the produce response"
        });
    rows.add(
        new String[] {
          "wake: 1-record produce p50/p99 ms",
          ms(pct(produceLat, 0.5)) + " / " + ms(pct(produceLat, 0.99)),
          ""
        });
  }

  private static long pct(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  private static String ms(long nanos) {
    return String.format("%.2f", nanos / 1e6);
  }

  private HttpResponse<String> post(String path, String json) {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build());
  }

  private HttpResponse<String> send(HttpRequest r) {
    try {
      return client.send(r, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private HttpResponse<byte[]> sendBytes(HttpRequest r) {
    try {
      return client.send(r, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void check(HttpResponse<String> r, int status) {
    if (r.statusCode() != status) {
      throw new IllegalStateException(
          r.request().method() + " " + r.uri() + " -> " + r.statusCode() + " " + r.body());
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted((a, b) -> b.compareTo(a))
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // best effort
                }
              });
    }
  }
}
