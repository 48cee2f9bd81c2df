package dev.loam.cloudevents;

import dev.loam.api.AppendRecord;
import dev.loam.api.LoamNode;
import dev.loam.api.Log;
import dev.loam.api.NodeSettings;
import dev.loam.api.StreamSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ingest throughput with the dedupe ledger versus plain produce, on one node with the embedded
 * metastore and a filesystem store: {@code inFlight} requests of {@code batch} events each are kept
 * outstanding for {@code seconds}; a CloudEvents request is one claim, one append and one
 * completion, a plain request one append of the same records. Reports events/s of each. Not a JUnit
 * test; run by the command in docs/reference/cloudevents.md ("Cost").
 *
 * <p>Arguments: {@code [seconds per mode (10)] [in flight (16)] [batch (1)]}.
 */
public final class CloudEventsIngestBench {
  private CloudEventsIngestBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int inFlight = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int batch = args.length > 2 ? Integer.parseInt(args[2]) : 1;
    Path dir = Files.createTempDirectory("ce-bench");
    try (LoamNode node =
        LoamNode.builder().nodeId("bench").dataDir(dir).settings(NodeSettings.defaults()).start()) {
      Log log = node.log();
      log.createNamespace("bench").get();
      log.createStream("bench", "plain", StreamSpec.standard(4)).get();
      log.createStream("bench", "events", StreamSpec.standard(4)).get();
      CloudEventIngest ingest = new CloudEventIngest(log);
      AtomicLong ids = new AtomicLong();
      // warm-up, then the two modes in turn
      run(2, inFlight, batch, () -> plain(log, batch, ids));
      run(2, inFlight, batch, () -> events(ingest, batch, ids));
      double plain = run(seconds, inFlight, batch, () -> plain(log, batch, ids));
      double ledger = run(seconds, inFlight, batch, () -> events(ingest, batch, ids));
      System.out.printf(
          "batch=%d inFlight=%d: plain produce %.0f records/s, CloudEvents with the ledger %.0f"
              + " events/s (%.2fx)%n",
          batch, inFlight, plain, ledger, ledger / plain);
    }
  }

  private static CloudEvent event(long id) {
    return JsonFormat.parseEvent(
        ("{\"specversion\":\"1.0\",\"id\":\"e-"
                + id
                + "\",\"source\":\"/bench\",\"type\":\"bench.event\","
                + "\"time\":\"2026-10-01T12:00:00Z\",\"data\":{\"n\":"
                + id
                + "}}")
            .getBytes(StandardCharsets.UTF_8));
  }

  private static CompletableFuture<?> plain(Log log, int batch, AtomicLong ids) {
    List<AppendRecord> records = new ArrayList<>(batch);
    for (int i = 0; i < batch; i++) {
      records.add(RecordLayout.toRecord(event(ids.incrementAndGet()), OptionalInt.empty()));
    }
    return log.append("bench", "plain", records);
  }

  private static CompletableFuture<?> events(CloudEventIngest ingest, int batch, AtomicLong ids) {
    List<CloudEvent> events = new ArrayList<>(batch);
    for (int i = 0; i < batch; i++) {
      events.add(event(ids.incrementAndGet()));
    }
    return ingest.ingest(
        "bench", "events", events, OptionalInt.empty(), () -> {}, CloudEventIngest.DEFAULT_WINDOW);
  }

  /** Keeps {@code inFlight} requests outstanding for {@code seconds}; returns events per second. */
  private static double run(
      int seconds, int inFlight, int batch, java.util.function.Supplier<CompletableFuture<?>> req)
      throws InterruptedException {
    Semaphore slots = new Semaphore(inFlight);
    AtomicLong done = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long start = System.nanoTime();
    long end = start + Duration.ofSeconds(seconds).toNanos();
    while (System.nanoTime() < end) {
      slots.acquire();
      req.get()
          .whenComplete(
              (r, t) -> {
                if (t == null) {
                  done.addAndGet(batch);
                } else {
                  failed.incrementAndGet();
                }
                slots.release();
              });
    }
    slots.acquire(inFlight);
    double elapsed = (System.nanoTime() - start) / 1e9;
    if (failed.get() > 0) {
      throw new IllegalStateException(failed.get() + " requests failed");
    }
    return done.get() / elapsed;
  }
}
