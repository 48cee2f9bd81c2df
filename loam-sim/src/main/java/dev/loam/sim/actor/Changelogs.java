package dev.loam.sim.actor;

import dev.loam.api.AppendRecord;
import dev.loam.api.ChangelogMode;
import dev.loam.api.Durability;
import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.api.Header;
import dev.loam.api.Log;
import dev.loam.api.StreamSpec;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.check.Checker;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A changelog stream in the run (docs/design/changelog.md), on the seeds its own random stream
 * picks (about one in three): a compacted stream {@code cs} written with keyed values and
 * tombstones through any live node, its changelog {@code cl} (full or upsert) kept by the worker on
 * {@code cs}'s owner through every fault of the run, and, after healing, the changelog judged
 * against what {@code cs} holds: no change doubled, per-key order, every before-image the row it
 * replaces, every surviving record of {@code cs} present, and the changelog's final rows equal to
 * {@code cs}'s. Its draws come from a stream of its own, so every other draw of a seed stays as it
 * was.
 */
public final class Changelogs {
  static final String SOURCE = "cs";
  static final String CHANGELOG = "cl";

  private final SimContext ctx;
  private final SimCluster cluster;
  private final SplittableRandom random;
  private final ChangelogMode mode;
  private final int partitions;
  private long endNanos;
  private int appends;

  private Changelogs(SimContext ctx, SimCluster cluster, SplittableRandom random) {
    this.ctx = ctx;
    this.cluster = cluster;
    this.random = random;
    this.mode = random.nextBoolean() ? ChangelogMode.FULL : ChangelogMode.UPSERT;
    this.partitions = 1 + random.nextInt(2);
  }

  /** The actor of this seed, or null when the seed runs no changelog. */
  public static Changelogs draw(SimContext ctx, SimCluster cluster, SplittableRandom random) {
    return random.nextInt(3) == 0 ? new Changelogs(ctx, cluster, random) : null;
  }

  /** Creates {@code cs} and {@code cl} through {@code log}, waiting with {@code await}. */
  public void setup(Log log, Function<CompletableFuture<?>, Object> await) {
    await.apply(
        log.createStream(
            SimContext.NS, SOURCE, new StreamSpec(partitions, Durability.STANDARD, -1, -1, true)));
    await.apply(log.createChangelog(SimContext.NS, CHANGELOG, SOURCE, mode));
    ctx.planned(
        "changelog "
            + CHANGELOG
            + " of "
            + SOURCE
            + " mode="
            + mode.wireName()
            + " partitions="
            + partitions);
  }

  /** Appends to {@code cs} every 20–80 ms until {@code endNanos}. */
  public void start(long endNanos) {
    this.endNanos = endNanos;
    schedule();
  }

  private void schedule() {
    ctx.scheduler().schedule(this::tick, 20 + random.nextInt(60), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    if (ctx.clock().nanos() >= endNanos) {
      return;
    }
    SimCluster.Node n = cluster.liveNode();
    if (n != null) {
      int p = random.nextInt(partitions);
      List<AppendRecord> recs = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(4); i++) {
        String key = "k" + random.nextInt(12);
        String value =
            random.nextInt(5) == 0
                ? null
                : "v" + (appends++) + "-" + "x".repeat(random.nextInt(200));
        recs.add(AppendRecord.of(key, value).toPartition(p));
      }
      ctx.opStarted();
      n.node()
          .log()
          .append(SimContext.NS, SOURCE, recs)
          .whenComplete(
              (r, e) -> {
                ctx.opDone();
                ctx.count(e == null ? "changelogSourceAcked" : "changelogSourceFailed");
              });
    }
    schedule();
  }

  /**
   * Judges the changelog against the source, both read through {@code log} (after healing and
   * enough time for the worker to catch up).
   */
  public void check(Log log, Function<CompletableFuture<?>, Object> await, Checker checker) {
    for (int p = 0; p < partitions; p++) {
      List<FetchedRecord> source = readAll(log, SOURCE, p, await);
      List<FetchedRecord> changes = readAll(log, CHANGELOG, p, await);
      ctx.put("changelogRecords.p" + p, changes.size());
      String where = " changelog=" + CHANGELOG + " partition=" + p + " mode=" + mode.wireName();
      Map<String, String> rows = new HashMap<>();
      Map<String, Long> lastOffset = new HashMap<>();
      Set<String> seen = new HashSet<>();
      Set<Long> changedOffsets = new HashSet<>();
      for (FetchedRecord c : changes) {
        String kind = header(c, "loam.row_kind");
        String at = header(c, "loam.source_offset");
        if (kind == null || at == null || c.key() == null) {
          checker.violation("a change record without kind, source offset or key" + where);
          return;
        }
        long offset = Long.parseLong(at);
        String k = c.keyAsString();
        if (!seen.add(kind + "@" + offset)) {
          checker.violation("a change doubled kind=" + kind + " sourceOffset=" + offset + where);
        }
        Long prev = lastOffset.get(k);
        if (prev != null && prev > offset) {
          checker.violation("per-key order broken key=" + k + " sourceOffset=" + offset + where);
        }
        lastOffset.put(k, offset);
        changedOffsets.add(offset);
        String v = c.valueAsString();
        boolean had = rows.containsKey(k);
        switch (kind) {
          case "+I" -> {
            if (had) {
              checker.violation(
                  "+I of a key with a row key=" + k + " sourceOffset=" + offset + where);
            }
            rows.put(k, v);
          }
          case "-U" -> {
            if (!had || !java.util.Objects.equals(rows.get(k), v)) {
              checker.violation(
                  "-U is not the row it replaces key=" + k + " sourceOffset=" + offset + where);
            }
          }
          case "+U" -> rows.put(k, v);
          case "-D" -> {
            if (!had || (mode == ChangelogMode.FULL && !java.util.Objects.equals(rows.get(k), v))) {
              checker.violation(
                  "-D of a missing row or with a wrong before-image key="
                      + k
                      + " sourceOffset="
                      + offset
                      + where);
            }
            rows.remove(k);
          }
          default -> checker.violation("unknown row kind=" + kind + where);
        }
      }
      Map<String, String> expected = new HashMap<>();
      long firstLost = -1;
      int lost = 0;
      for (FetchedRecord r : source) {
        if (r.key() == null) {
          continue;
        }
        if (r.value() == null) {
          expected.remove(r.keyAsString());
        } else {
          expected.put(r.keyAsString(), r.valueAsString());
          if (!changedOffsets.contains(r.offset())) {
            firstLost = lost++ == 0 ? r.offset() : firstLost;
          }
        }
      }
      if (lost > 0) {
        long sid =
            ((dev.loam.api.StreamDescription)
                    await.apply(log.describeStream(SimContext.NS, SOURCE)))
                .id();
        Object lease =
            await.apply(
                log.writerLease(
                    SimContext.NS, CHANGELOG, p, "changelog." + mode.wireName() + "." + sid));
        checker.violation(
            "changes lost count="
                + lost
                + " firstSourceOffset="
                + firstLost
                + " lease="
                + lease
                + where);
      }
      if (!rows.equals(expected)) {
        checker.violation(
            "the changelog's rows differ from the source's"
                + where
                + " changelogKeys="
                + rows.keySet()
                + " sourceKeys="
                + expected.keySet());
      }
    }
    ctx.count("changelogsJudged");
  }

  private static List<FetchedRecord> readAll(
      Log log, String stream, int p, Function<CompletableFuture<?>, Object> await) {
    List<FetchedRecord> out = new ArrayList<>();
    long next = 0;
    for (int i = 0; i < 100_000; i++) {
      FetchResult r =
          (FetchResult)
              await.apply(log.fetch(SimContext.NS, stream, p, next, 1 << 20, Duration.ZERO));
      for (FetchedRecord rec : r.records()) {
        if (rec.offset() >= next) {
          out.add(rec);
        }
      }
      if (r.records().isEmpty() || r.nextOffset() >= r.highWatermark()) {
        break;
      }
      next = r.nextOffset();
    }
    return out;
  }

  private static String header(FetchedRecord r, String name) {
    for (Header h : r.headers()) {
      if (h.key().equals(name)) {
        return new String(h.value(), StandardCharsets.US_ASCII);
      }
    }
    return null;
  }
}
