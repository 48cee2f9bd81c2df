package dev.loam.core.changelog;

import dev.loam.api.ChangelogMode;
import dev.loam.api.Log;
import dev.loam.core.ChangelogLinks;
import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.core.ownership.OwnedPartitions;
import dev.loam.meta.MetaReader;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.spi.store.ObjectStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the changelog workers of the compacted streams this node owns (docs/design/changelog.md "The
 * worker"): each pass finds, for every owned compacted stream S, the changelog streams linked to it
 * (a stream of S's namespace whose partition 0 holds a writer lease of source {@code
 * changelog.<mode>.<S's id>}), keeps one {@link ChangelogWorker} per changelog partition, polls
 * each once, and drops the workers of streams it no longer owns (their leases lapse; the new
 * owner's workers take the next term). Driven from outside ({@link #poll()}); no thread of its own;
 * overlapping polls join the pass in progress.
 */
public final class ChangelogAgent {
  private static final Logger log = LoggerFactory.getLogger(ChangelogAgent.class);

  /** Changelog partitions one node serves at most (STYLE.md §9). */
  static final int MAX_WORKERS = 4096;

  private final NodeContext ctx;
  private final Log logApi;
  private final ObjectStore store;
  private final ChangelogWorker.Settings settings;
  private final Map<String, ChangelogWorker> workers = new HashMap<>();
  private final AtomicBoolean running = new AtomicBoolean();
  private volatile CompletableFuture<Void> current = CompletableFuture.completedFuture(null);

  public ChangelogAgent(
      NodeContext ctx, Log logApi, ObjectStore store, ChangelogWorker.Settings settings) {
    this.ctx = ctx;
    this.logApi = logApi;
    this.store = store;
    this.settings = settings;
  }

  /** Starts a pass unless one is running; completes when the pass (new or running) ends. */
  public CompletableFuture<Void> poll() {
    if (!running.compareAndSet(false, true)) {
      return current;
    }
    CompletableFuture<Void> f;
    try {
      List<ChangelogWorker> due = refresh();
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (ChangelogWorker w : due) {
        chain =
            chain.thenCompose(
                v ->
                    w.poll()
                        .handle(
                            (p, e) -> {
                              if (e != null) {
                                log.debug(
                                    "changelog pass failed changelog={} partition={}: {}",
                                    w.link().targetStream(),
                                    w.link().partition(),
                                    e.getMessage());
                              }
                              return null;
                            }));
      }
      f = chain;
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f =
        f.handle(
            (v, t) -> {
              if (t != null) {
                log.warn("changelog agent pass failed", t);
              }
              running.set(false);
              return null;
            });
    current = f;
    return f;
  }

  /** The workers to poll now: one per changelog partition of an owned compacted stream. */
  private List<ChangelogWorker> refresh() {
    List<ChangelogWorker.Link> links = ctx.meta().read(r -> links(r, ctx.nodeId(), ctx.epoch()));
    Set<String> live = new HashSet<>();
    List<ChangelogWorker> out = new ArrayList<>();
    // The node id, not the process: a restarted node renews its own lease at once instead of
    // waiting it out, and its previous process cannot append any more (its node epoch is fenced on
    // every command, WAL commits included).
    String holder = ctx.nodeId();
    String root = ObjectLayout.changelogRoot(ctx.clusterId());
    for (ChangelogWorker.Link l : links) {
      if (live.size() >= MAX_WORKERS) {
        break;
      }
      String key = l.targetStreamId() + "/" + l.partition() + "/" + l.leaseSource();
      live.add(key);
      out.add(
          workers.computeIfAbsent(
              key,
              k -> new ChangelogWorker(logApi, store, root, ctx.clock(), l, holder, settings)));
    }
    workers.keySet().retainAll(live);
    return out;
  }

  /** Every changelog partition whose source stream this node holds open. */
  static List<ChangelogWorker.Link> links(MetaReader r, String nodeId, long nodeEpoch) {
    List<ChangelogWorker.Link> out = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (OwnedPartitions.Part part : OwnedPartitions.ownedPartitions(r, nodeId, nodeEpoch)) {
      StreamInfo s = part.stream();
      if (s.config().cleanupPolicy() != StreamConfig.CleanupPolicy.COMPACT || !seen.add(s.id())) {
        continue;
      }
      for (StreamInfo x : r.streams(s.namespace())) {
        ChangelogMode mode = ChangelogLinks.linkMode(r, x.id(), s.id()).orElse(null);
        if (mode == null) {
          continue;
        }
        int n = Math.min(s.config().partitions(), x.config().partitions());
        for (int p = 0; p < n; p++) {
          out.add(
              new ChangelogWorker.Link(s.namespace(), s.name(), s.id(), x.name(), x.id(), p, mode));
        }
      }
    }
    return out;
  }
}
