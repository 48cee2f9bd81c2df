package dev.loam.core.maintain;

import dev.loam.core.ownership.OwnershipAgent;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's background work on the log (stream-engine.txt §5): one pass runs retention, then the
 * segmenter (until a pass makes no segment, at most {@link #MAX_SEGMENTS_PER_PASS}), then the
 * compactor (compacted streams), then GC. A state machine driven from outside ({@link #poll()},
 * from NodeRuntime's scheduled task or a test); it owns no thread. Overlapping polls join the pass
 * in progress.
 *
 * <p>A pass first runs the ownership step (claiming the streams placement gives this node), and
 * retention and the segmenter then work only on the streams this node holds open: each of their
 * commands carries the stream epoch ({@code OwnerFenced}), so a step decided before a reopen or a
 * transfer is refused. GC is not per stream: every node runs it, and its deletes are idempotent.
 */
public final class Maintenance {
  private static final Logger log = LoggerFactory.getLogger(Maintenance.class);

  static final int MAX_SEGMENTS_PER_PASS = 16;

  private final OwnershipAgent ownership;
  private final RetentionTask retention;
  private final Segmenter segmenter;
  private final Compactor compactor;
  private final ObjectGc gc;
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile CompletableFuture<Void> current = CompletableFuture.completedFuture(null);

  public Maintenance(
      OwnershipAgent ownership,
      RetentionTask retention,
      Segmenter segmenter,
      Compactor compactor,
      ObjectGc gc) {
    this.ownership = ownership;
    this.retention = retention;
    this.segmenter = segmenter;
    this.compactor = compactor;
    this.gc = gc;
  }

  /** Starts a pass unless one is running; completes when the pass (new or running) ends. */
  public CompletableFuture<Void> poll() {
    if (!running.compareAndSet(false, true)) {
      return current;
    }
    CompletableFuture<Void> f =
        ownership
            .tick()
            .thenCompose(v -> retention.poll())
            .thenCompose(n -> segmentLoop(0))
            .thenCompose(n -> compactor.poll())
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
}
