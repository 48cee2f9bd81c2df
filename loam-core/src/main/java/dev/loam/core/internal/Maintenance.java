package dev.loam.core.internal;

import dev.loam.meta.MetaReader;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background work on the log (stream-engine.txt §5): one pass runs retention, then the
 * segmenter (until a pass makes no segment, at most {@link #MAX_SEGMENTS_PER_PASS}), then GC. A
 * state machine driven from outside ({@link #poll()}, from NodeRuntime's scheduled task or a test);
 * it owns no thread. Overlapping polls join the pass in progress.
 *
 * <p>Until stream ownership exists (issue 7) every node runs this for every stream; the metastore's
 * fences (compare-and-swap swaps, policy-checked trims, idempotent deletes) keep concurrent runs
 * safe, at the cost of duplicated work.
 */
final class Maintenance {
  private static final Logger log = LoggerFactory.getLogger(Maintenance.class);

  static final int MAX_SEGMENTS_PER_PASS = 16;

  private final RetentionTask retention;
  private final Segmenter segmenter;
  private final ObjectGc gc;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile CompletableFuture<Void> current = CompletableFuture.completedFuture(null);

  Maintenance(RetentionTask retention, Segmenter segmenter, ObjectGc gc) {
    this.retention = retention;
    this.segmenter = segmenter;
    this.gc = gc;
  }

  /** Starts a pass unless one is running; completes when the pass (new or running) ends. */
  CompletableFuture<Void> poll() {
    if (!running.compareAndSet(false, true)) {
      return current;
    }
    CompletableFuture<Void> f =
        retention
            .poll()
            .thenCompose(n -> segmentLoop(0))
            .thenCompose(n -> gc.poll())
            .handle(
                (v, t) -> {
                  if (t != null) {
                    log.warn("maintenance pass failed", t);
                  }
                  running.set(false);
                  return null;
                });
    current = f;
    return f;
  }

  private CompletableFuture<Integer> segmentLoop(int done) {
    if (done >= MAX_SEGMENTS_PER_PASS) {
      return CompletableFuture.completedFuture(done);
    }
    return segmenter
        .poll()
        .thenCompose(
            made -> made ? segmentLoop(done + 1) : CompletableFuture.completedFuture(done));
  }

  /** A stream's partition with its bounds, as read in one view. */
  record Part(StreamInfo stream, PartitionInfo bounds) {}

  /** Every partition of every stream, in (namespace, stream, partition) order. */
  static List<Part> partitions(MetaReader r) {
    List<Part> out = new ArrayList<>();
    for (String ns : r.namespaces()) {
      for (StreamInfo s : r.streams(ns)) {
        for (int p = 0; p < s.config().partitions(); p++) {
          r.partition(s.id(), p).ifPresent(b -> out.add(new Part(s, b)));
        }
      }
    }
    return out;
  }
}
