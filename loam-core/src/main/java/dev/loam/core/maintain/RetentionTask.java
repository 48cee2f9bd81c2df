package dev.loam.core.maintain;

import dev.loam.core.NodeContext;
import dev.loam.core.ownership.OwnedPartitions;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.TrimPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Enforces each stream's retention (stream-engine.txt §5 "Retention", metadata first): proposes a
 * {@link TrimPartition} per partition whose oldest whole entries are past the time limit (by the
 * metastore clock, which the state machine checks against) or beyond the size limit (Kafka's rule:
 * keep at least the limit, never the newest entry). Objects the trim leaves unreferenced are
 * retired by the metastore and deleted by GC after the grace period. Not thread-safe.
 */
public final class RetentionTask {
  /** Index entries examined per partition: a bound on one pass's work. */
  static final int MAX_SCAN_ENTRIES = 10_000;

  private final NodeContext ctx;
  private final String nodeId;
  private final Metastore meta;

  public RetentionTask(NodeContext ctx) {
    this.ctx = ctx;
    this.nodeId = ctx.nodeId();
    this.meta = ctx.meta();
  }

  /** Ledger entries one pass prunes at most. */
  static final int MAX_PRUNE_ENTRIES = 10_000;

  /**
   * Proposes every trim due now, then one PruneEvents when the CloudEvents dedupe ledger holds
   * expired entries (any node may: the first applied removes them, later ones find nothing);
   * completes with how many trims were applied. Never fails.
   */
  CompletableFuture<Integer> poll() {
    return pollTrims().thenCompose(n -> pruneEvents().thenApply(v -> n));
  }

  private CompletableFuture<Void> pruneEvents() {
    long expired;
    try {
      expired = meta.read(r -> r.eventLedgerExpired());
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(null);
    }
    if (expired == 0) {
      return CompletableFuture.completedFuture(null);
    }
    return meta.propose(new PruneEvents(ctx.origin(), MAX_PRUNE_ENTRIES))
        .handle((a, t) -> (Void) null);
  }

  private CompletableFuture<Integer> pollTrims() {
    List<OwnerFenced> trims = new ArrayList<>();
    try {
      meta.read(
          r -> {
            long metaClock = r.clockMillis();
            for (OwnedPartitions.Part part :
                OwnedPartitions.ownedPartitions(r, nodeId, ctx.epoch())) {
              StreamConfig cfg = part.stream().config();
              if (cfg.retentionMillis() < 0 && cfg.retentionBytes() < 0) {
                continue;
              }
              long id = part.stream().id();
              int p = part.bounds().partition();
              List<IndexEntry> es =
                  r.indexEntries(id, p, part.bounds().logStartOffset(), MAX_SCAN_ENTRIES);
              TrimPartition t = trimFor(id, p, es, cfg, metaClock, part.bounds().logStartOffset());
              if (t != null) {
                trims.add(new OwnerFenced(id, part.streamEpoch(), t));
              }
            }
            return null;
          });
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(0);
    }
    return proposeAll(trims, 0, 0);
  }

  private TrimPartition trimFor(
      long id, int p, List<IndexEntry> es, StreamConfig cfg, long metaClock, long logStart) {
    long byTime = -1;
    if (cfg.retentionMillis() >= 0) {
      long horizon = metaClock - cfg.retentionMillis();
      for (IndexEntry e : es) {
        if (e.maxTimestamp() >= horizon) {
          break;
        }
        byTime = e.endOffset();
      }
    }
    long bySize = -1;
    if (cfg.retentionBytes() >= 0 && es.size() == Math.min(es.size(), MAX_SCAN_ENTRIES)) {
      long total = 0;
      for (IndexEntry e : es) {
        total += e.byteLength();
      }
      // Drop from the start while what is left still holds the limit; never the newest entry.
      for (int i = 0; i < es.size() - 1; i++) {
        if (total - es.get(i).byteLength() < cfg.retentionBytes()) {
          break;
        }
        total -= es.get(i).byteLength();
        bySize = es.get(i).endOffset();
      }
    }
    Origin o = ctx.origin();
    if (bySize > byTime && bySize > logStart) {
      return new TrimPartition(o, id, p, bySize, TrimPartition.Reason.SIZE);
    }
    if (byTime > logStart) {
      return new TrimPartition(o, id, p, byTime, TrimPartition.Reason.TIME);
    }
    return null;
  }

  private CompletableFuture<Integer> proposeAll(List<OwnerFenced> trims, int i, int applied) {
    if (i >= trims.size()) {
      return CompletableFuture.completedFuture(applied);
    }
    return meta.propose(trims.get(i))
        .handle(
            (a, t) ->
                t == null
                        && a.outcome() instanceof dev.loam.meta.command.Outcome.Trimmed tr
                        && tr.entriesDropped() > 0
                    ? 1
                    : 0)
        .thenCompose(n -> proposeAll(trims, i + 1, applied + n));
  }
}
