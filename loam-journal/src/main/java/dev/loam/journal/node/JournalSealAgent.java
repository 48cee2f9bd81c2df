package dev.loam.journal.node;

import dev.loam.journal.entry.JournalResult;
import dev.loam.journal.ratis.Journals;
import dev.loam.journal.seal.JournalSealer;
import dev.loam.spi.quorum.QuorumHostContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link JournalSealer} for every journal a node hosts (docs/design/quorum.md "Sealing"): a
 * pass every {@link #INTERVAL_MILLIS} ms, and at once again after a pass that sealed something, so
 * that a producer writing faster than one segment per interval is not stopped by a full tail. The
 * sealers write to the node's object store and commit into the metastore's offset index; on a
 * journal this node does not lead a pass does nothing. Passes never overlap and run on the node's
 * I/O pool; a failed pass is logged and the next one finds out what happened and goes on.
 */
final class JournalSealAgent {
  private static final Logger LOG = LoggerFactory.getLogger(JournalSealAgent.class);

  /** How often a node looks for tails to seal. */
  static final long INTERVAL_MILLIS = 100;

  private final QuorumHostContext ctx;
  private final Journals server;
  private final Supplier<List<String>> journals;
  private final long minSealBytes;
  private final long maxSegmentBytes;

  /**
   * A partition's non-empty tail is sealed, whatever its size, once its sealed offset has not moved
   * for this long, so a quiet partition's records reach segments (where retention trims them).
   */
  private final long quietSealMillis;

  private final Map<String, JournalSealer> sealers = new ConcurrentHashMap<>();
  private final ScheduledExecutorService scheduler;
  private final Executor executor;
  private volatile boolean closed;

  /**
   * @param maxUnsealedBytes the journals' bound: a partition is sealed at a sixteenth of it, into
   *     segments of at most a quarter; a quiet one after the context's quiet-seal interval
   */
  JournalSealAgent(
      QuorumHostContext ctx,
      Journals server,
      Supplier<List<String>> journals,
      long maxUnsealedBytes) {
    this.ctx = ctx;
    this.server = server;
    this.journals = journals;
    this.minSealBytes = Math.max(1, maxUnsealedBytes / 16);
    this.maxSegmentBytes = Math.max(minSealBytes, maxUnsealedBytes / 4);
    this.quietSealMillis = ctx.effectiveQuietSealMillis();
    this.scheduler = ctx.scheduler();
    this.executor = ctx.executor();
  }

  void start() {
    schedule(INTERVAL_MILLIS);
  }

  void close() {
    closed = true;
  }

  /** The sealer of {@code journal} on this node, once a pass created it. */
  JournalSealer sealer(String journal) {
    return sealers.get(journal);
  }

  private void schedule(long delayMillis) {
    if (closed) {
      return;
    }
    try {
      scheduler.schedule(() -> executor.execute(this::pass), delayMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // The node is stopping.
    }
  }

  private void pass() {
    if (closed) {
      return;
    }
    List<CompletableFuture<List<JournalResult>>> polls = new ArrayList<>();
    try {
      for (String j : journals.get()) {
        polls.add(sealerOf(j).poll());
      }
    } catch (RuntimeException e) {
      LOG.debug("journal seal pass failed node={}", ctx.nodeId(), e);
    }
    CompletableFuture.allOf(polls.toArray(CompletableFuture[]::new))
        .handle(
            (v, t) -> {
              if (t != null && !closed) {
                LOG.debug("journal seal pass failed node={}", ctx.nodeId(), t);
              }
              boolean sealed =
                  t == null
                      && polls.stream()
                          .anyMatch(
                              f ->
                                  f.join().stream()
                                      .anyMatch(r -> r instanceof JournalResult.Sealed));
              schedule(sealed ? 0 : INTERVAL_MILLIS);
              return null;
            });
  }

  private JournalSealer sealerOf(String journal) {
    return sealers.computeIfAbsent(
        journal,
        j ->
            new JournalSealer(
                server,
                j,
                ctx.store()::create,
                ctx.segments(),
                new MetastoreOffsetIndex(ctx.metastore(), ctx.origin(), j),
                minSealBytes,
                maxSegmentBytes,
                quietSealMillis,
                () -> ctx.origin().get().stampMillis()));
  }
}
