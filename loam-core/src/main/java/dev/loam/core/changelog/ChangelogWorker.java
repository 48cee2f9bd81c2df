package dev.loam.core.changelog;

import dev.loam.api.AppendRecord;
import dev.loam.api.ChangelogMode;
import dev.loam.api.FencedAppendResult;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Log;
import dev.loam.api.SourceGroup;
import dev.loam.api.WriterLease;
import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.error.LoamException.Kind;
import dev.loam.spi.store.ObjectExistsException;
import dev.loam.spi.store.ObjectInfo;
import dev.loam.spi.store.ObjectStore;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the committed records of one partition of a compacted stream S into the change records of
 * the same partition of its changelog stream X (docs/design/changelog.md "The worker"), exactly
 * once, through the fenced append. Driven from outside: each {@link #poll()} is one bounded pass
 * (take or renew the writer lease, bring the state to the lease's {@code sourceUpto}, read one
 * bounded batch of S, append its changes, maybe checkpoint). It has no thread and never blocks; the
 * caller runs one poll at a time.
 *
 * <p>Crash safety: the in-memory state only ever moves forward with source records whose changes
 * are known to be in X (a successful answer, or {@code sourceUpto} read from the lease), so after a
 * failure of any kind the next poll, on this worker or a fresh one, resumes exactly at {@code
 * sourceUpto + 1}, and the fenced append refuses anything already there.
 */
public final class ChangelogWorker {
  private static final Logger log = LoggerFactory.getLogger(ChangelogWorker.class);

  /** The bounds of one worker (STYLE.md §9). */
  public record Settings(
      int maxFetchBytes, int maxGroups, long checkpointEveryRecords, Duration lease, int maxKeys) {
    /** 1 MiB reads, 10 000 groups per append, a checkpoint every 10 000 records, 10 s leases. */
    public static Settings defaults() {
      return new Settings(1 << 20, 10_000, 10_000, Duration.ofSeconds(10), 1_000_000);
    }
  }

  /** What one pass did. */
  public record Pass(int sourceRecords, int groupsAppended, boolean caughtUp) {}

  /** How the worker appends; {@link Log#appendFenced} unless a test interposes. */
  @FunctionalInterface
  public interface FencedAppend {
    CompletableFuture<FencedAppendResult> append(
        String namespace,
        String stream,
        int partition,
        String source,
        long leaseEpoch,
        List<SourceGroup> groups);
  }

  /** Identifies a changelog partition: S and X by name and id, the partition and the mode. */
  public record Link(
      String namespace,
      String sourceStream,
      long sourceStreamId,
      String targetStream,
      long targetStreamId,
      int partition,
      ChangelogMode mode) {
    /** The writer-lease source of this link: {@code changelog.<mode>.<S's id>}. */
    public String leaseSource() {
      return sourceName(mode, sourceStreamId);
    }
  }

  /** The writer-lease source name that links a changelog to its source stream. */
  public static String sourceName(ChangelogMode mode, long sourceStreamId) {
    return dev.loam.core.ChangelogLinks.sourceName(mode, sourceStreamId);
  }

  private final Log logApi;
  private final FencedAppend appender;
  private final ObjectStore store;
  private final String checkpointPrefix;
  private final InstantSource clock;
  private final Link link;
  private final String holder;
  private final Settings settings;

  private ChangelogState state;
  private long sourceUpto = -1;
  private long epoch;
  private long checkpointedAt = -1;
  // When the lease was last taken or renewed (node clock), Long.MIN_VALUE: renew at the next poll.
  private long renewedAtMillis = Long.MIN_VALUE;

  /**
   * A worker of {@code link} for {@code holder}.
   *
   * @param checkpointRoot the key prefix of checkpoints, {@code changelog/<cluster id>/}; the
   *     worker writes under {@code <root><X's id>/<partition>/}
   */
  public ChangelogWorker(
      Log logApi,
      FencedAppend appender,
      ObjectStore store,
      String checkpointRoot,
      InstantSource clock,
      Link link,
      String holder,
      Settings settings) {
    this.logApi = logApi;
    this.appender = appender;
    this.store = store;
    this.checkpointPrefix = checkpointRoot + link.targetStreamId() + "/" + link.partition() + "/";
    this.clock = clock;
    this.link = link;
    this.holder = holder;
    this.settings = settings;
  }

  /** A worker appending through {@code log} itself. */
  public ChangelogWorker(
      Log log,
      ObjectStore store,
      String checkpointRoot,
      InstantSource clock,
      Link link,
      String holder,
      Settings settings) {
    this(log, log::appendFenced, store, checkpointRoot, clock, link, holder, settings);
  }

  /** The link this worker serves. */
  public Link link() {
    return link;
  }

  /** The last source offset whose changes are known to be in X; -1 before the first. */
  public long sourceUpto() {
    return sourceUpto;
  }

  /**
   * One pass; fails with what failed, and the next poll then starts over from the lease. The lease
   * is renewed when a third of it has passed (an append renews it too), so an idle worker costs one
   * local read per poll, not a metastore proposal.
   */
  public CompletableFuture<Pass> poll() {
    long now = clock.millis();
    CompletableFuture<Void> leased;
    boolean fresh =
        renewedAtMillis != Long.MIN_VALUE
            && now - renewedAtMillis < settings.lease().toMillis() / 3;
    if (state != null && fresh) {
      leased = CompletableFuture.completedFuture(null);
    } else {
      leased =
          logApi
              .acquireWriterLease(
                  link.namespace(),
                  link.targetStream(),
                  link.partition(),
                  link.leaseSource(),
                  holder,
                  settings.lease())
              .thenCompose(
                  (WriterLease l) -> {
                    renewedAtMillis = now;
                    epoch = l.epoch();
                    sourceUpto = l.resumeFrom() - 1;
                    return ensureState(sourceUpto);
                  });
    }
    return leased
        .thenCompose(v -> process())
        .thenCompose(p -> maybeCheckpoint().thenApply(v -> p))
        .whenComplete(
            (p, e) -> {
              if (e != null) {
                renewedAtMillis = Long.MIN_VALUE; // what the log holds is re-read from the lease
              }
            });
  }

  // ---- the state

  private CompletableFuture<Void> ensureState(long upto) {
    CompletableFuture<Void> loaded =
        state != null
            ? CompletableFuture.completedFuture(null)
            : loadCheckpoint(upto).thenAccept(s -> state = s);
    return loaded.thenCompose(v -> replay(upto));
  }

  /** Applies source records up to {@code upto} to the state without emitting anything. */
  private CompletableFuture<Void> replay(long upto) {
    if (state.position() >= upto) {
      return CompletableFuture.completedFuture(null);
    }
    long from = state.position() + 1;
    return fetch(from)
        .thenCompose(
            r -> {
              for (FetchedRecord rec : r.records()) {
                if (rec.offset() > upto) {
                  break;
                }
                if (rec.offset() >= from) {
                  state.apply(rec.offset(), rec.key(), rec.value() == null);
                }
              }
              long covered = Math.min(upto, r.nextOffset() - 1);
              if (covered < from && r.records().isEmpty()) {
                return CompletableFuture.failedFuture(
                    new LoamException(
                        Kind.INTERNAL,
                        "the changelog's source position is beyond the source's end "
                            + text()
                            + " sourceUpto="
                            + upto
                            + " highWatermark="
                            + r.highWatermark()));
              }
              state.advanceTo(covered);
              return replay(upto);
            });
  }

  private CompletableFuture<ChangelogState> loadCheckpoint(long upto) {
    ChangelogState empty =
        new ChangelogState(link.sourceStreamId(), link.partition(), settings.maxKeys());
    return store
        .list(prefix(), "", 1000)
        .thenCompose(
            page -> {
              String best = null;
              long bestAt = -1;
              for (ObjectInfo o : page.objects()) {
                long at = coveredOf(o.key());
                if (at >= 0 && at <= upto && at > bestAt) {
                  best = o.key();
                  bestAt = at;
                }
              }
              if (best == null) {
                return CompletableFuture.completedFuture(empty);
              }
              String key = best;
              return store
                  .get(key)
                  .thenApply(
                      bytes -> {
                        try {
                          ChangelogState s =
                              ChangelogState.decode(
                                  bytes,
                                  link.sourceStreamId(),
                                  link.partition(),
                                  settings.maxKeys());
                          checkpointedAt = s.position();
                          return s;
                        } catch (CorruptionException e) {
                          // Never trusted partly: the state is rebuilt from the log instead.
                          log.warn(
                              "ignoring a corrupt changelog checkpoint object={}: {}",
                              key,
                              e.getMessage());
                          return empty;
                        }
                      });
            })
        .exceptionally(
            e -> {
              log.warn("changelog checkpoints unreadable {}: {}", text(), e.getMessage());
              return empty;
            });
  }

  private CompletableFuture<Void> maybeCheckpoint() {
    long at = state.position();
    if (at < 0 || at - checkpointedAt < settings.checkpointEveryRecords() || at > sourceUpto) {
      return CompletableFuture.completedFuture(null);
    }
    String key = prefix() + String.format("%020d", at) + ".ckpt";
    byte[] bytes = state.encode();
    return store
        .create(key, bytes)
        .handle(
            (v, e) -> {
              Throwable c = unwrap(e);
              if (e == null || c instanceof ObjectExistsException) {
                checkpointedAt = at;
                deleteOlder(at);
              } else {
                log.warn("changelog checkpoint not written object={}: {}", key, c.getMessage());
              }
              return null;
            });
  }

  private void deleteOlder(long at) {
    store
        .list(prefix(), "", 1000)
        .thenCompose(
            page -> {
              List<String> old = new ArrayList<>();
              for (ObjectInfo o : page.objects()) {
                long c = coveredOf(o.key());
                if (c >= 0 && c < at) {
                  old.add(o.key());
                }
              }
              return old.isEmpty()
                  ? CompletableFuture.completedFuture(List.of())
                  : store.delete(old);
            });
  }

  /** {@code <root><X's id>/<partition>/}: where this worker's checkpoints live. */
  String prefix() {
    return checkpointPrefix;
  }

  private long coveredOf(String key) {
    String name = key.substring(prefix().length());
    if (!name.endsWith(".ckpt") || name.length() != 20 + 5) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(0, 20));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  // ---- one batch

  private CompletableFuture<Pass> process() {
    long from = state.position() + 1;
    return fetch(from)
        .thenCompose(
            r -> {
              List<FetchedRecord> records = new ArrayList<>();
              for (FetchedRecord rec : r.records()) {
                if (rec.offset() >= from) {
                  records.add(rec);
                }
              }
              if (records.isEmpty()) {
                return CompletableFuture.completedFuture(new Pass(0, 0, true));
              }
              return beforeImages(records)
                  .thenCompose(before -> appendChanges(records, before, r.highWatermark()));
            });
  }

  /**
   * The before-images the batch needs from before it, read from S by offset; rows written inside
   * the batch are taken from the batch itself.
   */
  private CompletableFuture<Map<Long, byte[]>> beforeImages(List<FetchedRecord> records) {
    Map<Long, byte[]> out = new HashMap<>();
    if (link.mode() != ChangelogMode.FULL) {
      return CompletableFuture.completedFuture(out);
    }
    List<Long> needed = new ArrayList<>();
    Map<ChangelogState.Key, Boolean> seen = new HashMap<>();
    for (FetchedRecord rec : records) {
      if (rec.key() == null) {
        continue;
      }
      ChangelogState.Key k = new ChangelogState.Key(rec.key());
      if (seen.put(k, Boolean.TRUE) == null) {
        long o = state.rowOffset(rec.key());
        if (o >= 0) {
          needed.add(o);
        }
      }
    }
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (long o : needed) {
      chain = chain.thenCompose(v -> readAt(o).thenAccept(value -> out.put(o, value)));
    }
    return chain.thenApply(v -> out);
  }

  private CompletableFuture<byte[]> readAt(long offset) {
    return logApi
        .fetch(link.namespace(), link.sourceStream(), link.partition(), offset, 1, Duration.ZERO)
        .thenApply(
            r -> {
              for (FetchedRecord rec : r.records()) {
                if (rec.offset() == offset) {
                  return rec.value();
                }
              }
              throw new LoamException(
                  Kind.NOT_FOUND,
                  "the before-image is gone from the source (compacted or trimmed) "
                      + text()
                      + " offset="
                      + offset);
            });
  }

  private CompletableFuture<Pass> appendChanges(
      List<FetchedRecord> records, Map<Long, byte[]> before, long highWatermark) {
    // The rows as of each record: the state, overlaid with the batch's own records so far.
    Map<ChangelogState.Key, FetchedRecord> overlay = new HashMap<>();
    Map<ChangelogState.Key, Boolean> deleted = new HashMap<>();
    List<SourceGroup> groups = new ArrayList<>();
    long groupStart = sourceUpto + 1;
    int used = 0;
    for (FetchedRecord rec : records) {
      if (groups.size() == settings.maxGroups()) {
        break;
      }
      used++;
      if (rec.key() == null) {
        continue;
      }
      ChangelogState.Key k = new ChangelogState.Key(rec.key());
      boolean hadRow;
      byte[] beforeValue = null;
      FetchedRecord inBatch = overlay.get(k);
      if (inBatch != null) {
        hadRow = true;
        beforeValue = inBatch.value();
      } else if (deleted.containsKey(k)) {
        hadRow = false;
      } else {
        long o = state.rowOffset(rec.key());
        hadRow = o >= 0;
        beforeValue = hadRow ? before.get(o) : null;
      }
      List<AppendRecord> changes = ChangeRecords.of(rec, hadRow, beforeValue, link.mode());
      if (rec.value() == null) {
        overlay.remove(k);
        deleted.put(k, Boolean.TRUE);
      } else {
        overlay.put(k, rec);
        deleted.remove(k);
      }
      if (!changes.isEmpty()) {
        groups.add(new SourceGroup(groupStart, rec.offset(), changes));
        groupStart = rec.offset() + 1;
      }
    }
    final int consumed = used;
    List<FetchedRecord> done = records.subList(0, consumed);
    long last = done.get(done.size() - 1).offset();
    boolean caughtUp = consumed == records.size() && last + 1 >= highWatermark;
    if (groups.isEmpty()) {
      applyAll(done);
      return CompletableFuture.completedFuture(new Pass(consumed, 0, caughtUp));
    }
    return appender
        .append(
            link.namespace(),
            link.targetStream(),
            link.partition(),
            link.leaseSource(),
            epoch,
            groups)
        .thenApply(
            res -> {
              sourceUpto = res.sourceUpto();
              renewedAtMillis = Math.max(renewedAtMillis, clock.millis() - 1);
              applyAll(done);
              int appended =
                  (int)
                      res.groups().stream()
                          .filter(g -> g.status() == FencedAppendResult.Status.APPENDED)
                          .count();
              return new Pass(consumed, appended, caughtUp);
            });
  }

  private void applyAll(List<FetchedRecord> done) {
    for (FetchedRecord rec : done) {
      state.apply(rec.offset(), rec.key(), rec.value() == null);
    }
  }

  private CompletableFuture<FetchResult> fetch(long from) {
    return logApi.fetch(
        link.namespace(),
        link.sourceStream(),
        link.partition(),
        from,
        settings.maxFetchBytes(),
        Duration.ZERO);
  }

  private String text() {
    return "stream="
        + link.namespace()
        + "/"
        + link.sourceStream()
        + " changelog="
        + link.targetStream()
        + " partition="
        + link.partition();
  }

  private static Throwable unwrap(Throwable e) {
    while (e instanceof CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
