package dev.loam.core.maintain;

import dev.loam.core.NodeContext;
import dev.loam.core.ObjectLayout;
import dev.loam.meta.Metastore;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.RetiredObject;
import dev.loam.spi.store.DeleteFailure;
import dev.loam.spi.store.ListPage;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import dev.loam.wal.ulid.Ulid;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes objects nothing references (stream-engine.txt §5, D27; docs/design/maintenance.md):
 *
 * <ol>
 *   <li><b>Retired</b> objects (the metastore's list: no index entry references them since their
 *       retire time) once {@code gracePeriod} has passed, in batches of at most 1000 keys, then
 *       confirms with {@link DeleteObjects}. A crash between delete and confirmation only repeats
 *       an idempotent delete.
 *   <li><b>Orphans</b>: objects under this cluster's {@code wal/} and {@code seg/} prefixes ({@link
 *       ObjectLayout#gcPrefixes}: another cluster's objects in the same root are never listed) that
 *       are neither referenced nor retired and whose ULID time (from the key) is older than {@code
 *       orphanMinAge}: a node died between PUT and commit, or a swap was refused. One list page per
 *       prefix per poll, resuming where the last poll stopped. Safe because the metastore refuses
 *       commits and swaps of objects older than its stale-commit window, which {@code orphanMinAge}
 *       exceeds.
 * </ol>
 *
 * Not thread-safe: {@link Maintenance} runs one poll at a time.
 */
public final class ObjectGc {
  private static final Logger log = LoggerFactory.getLogger(ObjectGc.class);

  static final int MAX_BATCH = 1000;

  private final String nodeId;
  private final NodeContext ctx;
  private final Metastore meta;
  private final ObjectStore store;
  private final InstantSource clock;
  private final long graceMillis;
  private final long orphanMinAgeMillis;
  // This cluster's prefixes only, one per store (express WAL objects live in their own store,
  // ClassRoutingObjectStore): another cluster's objects in the same root are never listed.
  private final List<String> prefixes;
  private final String[] cursors;
  private long retiredDeleted;
  private long orphansDeleted;

  public ObjectGc(NodeContext ctx, ObjectStore store, long graceMillis, long orphanMinAgeMillis) {
    this.ctx = ctx;
    this.prefixes = ObjectLayout.gcPrefixes(ctx.clusterId());
    this.cursors = new String[prefixes.size()];
    this.nodeId = ctx.nodeId();
    this.meta = ctx.meta();
    this.store = store;
    this.clock = ctx.clock();
    this.graceMillis = graceMillis;
    this.orphanMinAgeMillis = orphanMinAgeMillis;
    java.util.Arrays.fill(cursors, "");
  }

  /** One pass: retired objects, then one orphan page per prefix. Never fails. */
  CompletableFuture<Void> poll() {
    return deleteRetired()
        .thenCompose(v -> orphans(0))
        .exceptionally(
            t -> {
              log.warn("gc pass failed", t);
              return null;
            });
  }

  private CompletableFuture<Void> deleteRetired() {
    long horizon = clock.millis() - graceMillis;
    List<String> due = new ArrayList<>();
    for (RetiredObject r : meta.read(m -> m.retiredObjects(MAX_BATCH))) {
      if (r.retiredAtMillis() <= horizon) {
        due.add(r.objectKey());
      }
    }
    if (due.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return store
        .delete(due)
        .thenCompose(
            failures -> {
              Set<String> failed = new HashSet<>();
              for (DeleteFailure f : failures) {
                failed.add(f.key());
              }
              List<String> done = due.stream().filter(k -> !failed.contains(k)).toList();
              retiredDeleted += done.size();
              if (done.isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              return meta.propose(new DeleteObjects(ctx.origin(), done)).thenApply(a -> null);
            });
  }

  private CompletableFuture<Void> orphans(int i) {
    if (i >= prefixes.size()) {
      return CompletableFuture.completedFuture(null);
    }
    String prefix = prefixes.get(i);
    return store
        .list(prefix, cursors[i], MAX_BATCH)
        .thenCompose(
            page -> {
              cursors[i] = page.nextStartAfter().orElse("");
              List<String> orphans = orphansIn(page);
              if (orphans.isEmpty()) {
                return CompletableFuture.completedFuture(null);
              }
              return store
                  .delete(orphans)
                  .thenAccept(f -> orphansDeleted += orphans.size() - f.size());
            })
        .thenCompose(v -> orphans(i + 1));
  }

  private List<String> orphansIn(ListPage page) {
    long horizon = clock.millis() - orphanMinAgeMillis;
    List<String> old = new ArrayList<>();
    for (ObjectInfo o : page.objects()) {
      long t = objectTime(o);
      if (t <= horizon) {
        old.add(o.key());
      }
    }
    if (old.isEmpty()) {
      return old;
    }
    return meta.read(
        r -> old.stream().filter(k -> r.objectRefs(k) == 0 && r.retired(k).isEmpty()).toList());
  }

  /**
   * The object's creation time: the ULID in its key ({@code .../<ulid>.wal}, {@code
   * .../<base>-<ulid>.seg}), else the store's last-modified time.
   */
  static long objectTime(ObjectInfo o) {
    String k = o.key();
    int slash = k.lastIndexOf('/');
    int dot = k.lastIndexOf('.');
    if (dot > slash) {
      String name = k.substring(slash + 1, dot);
      int dash = name.lastIndexOf('-');
      String ulid = dash >= 0 ? name.substring(dash + 1) : name;
      if (ulid.length() == Ulid.STRING_LENGTH) {
        try {
          return Ulid.parse(ulid).timestampMillis();
        } catch (RuntimeException e) {
          // not a ULID: fall back below
        }
      }
    }
    return o.lastModifiedMillis();
  }

  long retiredDeleted() {
    return retiredDeleted;
  }

  long orphansDeleted() {
    return orphansDeleted;
  }
}
