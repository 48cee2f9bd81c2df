package dev.loam.sim.check;

import dev.loam.api.AppendResult;
import dev.loam.api.FetchResult;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.StreamInfo;
import dev.loam.sim.SimCluster;
import dev.loam.sim.SimContext;
import dev.loam.sim.SimMetastore;
import dev.loam.sim.SimObjectStore;
import dev.loam.sim.SimStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The validations at the end of a run, once healing is over (docs/design/simulation.md
 * "Validations"): one node reads every partition back, and the result is judged against the {@link
 * History}. Each invariant is one method:
 *
 * <ul>
 *   <li>{@link #readBack}: every partition reads back from its log start to its high watermark, in
 *       order, and no record value appears twice (idempotent retries never duplicate);
 *   <li>{@link #indexedObjectsExist}: every object the index references exists (GC never deletes
 *       live data), an express one on at least two of the three zones;
 *   <li>{@link #acknowledgedAtItsOffsets}: every acknowledged append at or above its partition's
 *       final log start is at exactly its acknowledged offsets with its bytes, and one below it was
 *       dropped by a trim the {@link RetentionModel} allowed (else it is lost);
 *   <li>{@link #retentionApplied}: the model's log start is the metastore's, and retention was
 *       enforced ({@link RetentionModel#checkEnforced});
 *   <li>{@link #definiteFailureAbsent}: an append whose every attempt failed with a definite kind
 *       is absent.
 * </ul>
 */
public final class FinalValidation {
  private final SimContext ctx;
  private final SimMetastore meta;
  private final SimObjectStore store;
  private final List<SimObjectStore> zones;
  private final List<SimStream> streams;
  private final History history;
  private final Checker checker;
  private final RetentionModel retention;

  /** Where each value read back was found: {@code stream/partition@offset}. */
  private final Map<String, String> where = new HashMap<>();

  private final Set<String> seen = new HashSet<>();
  private long duplicates;
  private long lost;
  private long absentDefinite;
  private long trimmed;

  /** Validates the run of these stores, streams and history; violations go to {@code checker}. */
  public FinalValidation(
      SimContext ctx,
      SimMetastore meta,
      SimObjectStore store,
      List<SimObjectStore> zones,
      List<SimStream> streams,
      History history,
      Checker checker,
      RetentionModel retention) {
    this.ctx = ctx;
    this.meta = meta;
    this.store = store;
    this.zones = zones;
    this.streams = streams;
    this.history = history;
    this.checker = checker;
    this.retention = retention;
  }

  /** Reads back through {@code reader} (a started node with a true clock) and validates. */
  public void run(SimCluster.Node reader) {
    run(reader, reader);
  }

  /**
   * Reads back through {@code reader}, the quorum stream through {@code quorumReader} (a node that
   * hosts its journal: only a replica serves it), and validates.
   */
  public void run(SimCluster.Node reader, SimCluster.Node quorumReader) {
    for (SimStream st : streams) {
      StreamInfo info = meta.read(r -> r.stream(SimContext.NS, st.name())).orElseThrow();
      for (int p = 0; p < st.partitions(); p++) {
        retentionApplied(st, info, p);
        readBack(st.quorum() ? quorumReader : reader, st, info, p);
        indexedObjectsExist(info, p);
      }
    }
    Map<String, Long> logStarts = logStarts();
    Map<String, Long> streamIds = new HashMap<>();
    for (SimStream st : streams) {
      streamIds.put(
          st.name(), meta.read(r -> r.stream(SimContext.NS, st.name())).orElseThrow().id());
    }
    for (History.Append a : history.appends()) {
      if (a.acked() != null) {
        acknowledgedAtItsOffsets(a, logStarts, streamIds.get(a.stream().name()));
      } else if (!a.unknown()) {
        definiteFailureAbsent(a);
      }
    }
    ctx.put("ackedLost", lost);
    ctx.put("ackedTrimmedByRetention", trimmed);
    ctx.put("duplicates", duplicates);
    ctx.put("definiteFailuresPresent", absentDefinite);
    ctx.put("recordsReadBack", (long) where.size());
  }

  /** Records read back. */
  public int recordsReadBack() {
    return where.size();
  }

  /** Reads one partition from its log start to its high watermark; no value twice. */
  private void readBack(SimCluster.Node reader, SimStream st, StreamInfo info, int partition) {
    Checker.Part part = new Checker.Part(st.name(), partition);
    PartitionInfo pi = meta.read(r -> r.partition(info.id(), partition)).orElseThrow();
    long offset = pi.logStartOffset();
    // A quorum partition's metastore high watermark is the end of its last sealed segment; its own
    // is the journal's, which the fetches answer.
    long end = pi.highWatermark();
    if (st.quorum()) {
      CompletableFuture<FetchResult> f =
          reader.node().log().fetch(SimContext.NS, st.name(), partition, offset, 1, Duration.ZERO);
      if (!ctx.scheduler().runUntil(f::isDone, 1_000_000) || f.isCompletedExceptionally()) {
        checker.violation("read-back fetch failed part=" + part + " offset=" + offset + " " + f);
        return;
      }
      end = f.join().highWatermark();
    }
    while (offset < end) {
      CompletableFuture<FetchResult> f =
          reader
              .node()
              .log()
              .fetch(SimContext.NS, st.name(), partition, offset, 1 << 20, Duration.ZERO);
      if (!ctx.scheduler().runUntil(f::isDone, 1_000_000) || f.isCompletedExceptionally()) {
        checker.violation("read-back fetch failed part=" + part + " offset=" + offset + " " + f);
        break;
      }
      FetchResult r = f.join();
      if (r.records().isEmpty()) {
        checker.violation("read-back stalled part=" + part + " offset=" + offset);
        break;
      }
      checker.checkFetch(part, offset, r, "read-back");
      for (var rec : r.records()) {
        String v = Checker.value(rec);
        if (!seen.add(v)) {
          duplicates++;
          checker.violation("duplicate record value=" + abbreviate(v) + " part=" + part);
        }
        where.put(v, part + "@" + rec.offset());
      }
      offset = r.nextOffset();
    }
  }

  /**
   * The model saw every trim (its log start is the metastore's), and after healing retention left
   * nothing its rules drop.
   */
  private void retentionApplied(SimStream st, StreamInfo info, int partition) {
    PartitionInfo pi = meta.read(r -> r.partition(info.id(), partition)).orElseThrow();
    long modelStart = retention.logStart(info.id(), partition);
    if (modelStart != pi.logStartOffset()) {
      checker.violation(
          "retention model's log start differs part="
              + st.name()
              + "/"
              + partition
              + " model="
              + modelStart
              + " metastore="
              + pi.logStartOffset());
    }
    retention.checkEnforced(
        st,
        info.id(),
        partition,
        meta.read(r -> r.indexEntries(info.id(), partition, pi.logStartOffset(), 2)));
  }

  /** Every object the index references exists (GC never deletes live data). */
  private void indexedObjectsExist(StreamInfo info, int partition) {
    List<IndexEntry> entries =
        meta.read(r -> r.indexEntries(info.id(), partition, 0, Integer.MAX_VALUE));
    for (IndexEntry e : entries) {
      if (e.objectKey().startsWith("wal/express/")) {
        // An acknowledged express object is on a majority of the zones.
        long copies =
            zones.stream().filter(z -> z.direct().head(e.objectKey()).join().isPresent()).count();
        if (copies < 2) {
          checker.violation(
              "express object on fewer than 2 zones copies=" + copies + " key=" + e.objectKey());
        }
      } else if (store.direct().head(e.objectKey()).join().isEmpty()) {
        checker.violation("index references a missing object key=" + e.objectKey());
      }
    }
  }

  /** Each partition's final log start, by {@code stream/partition}. */
  private Map<String, Long> logStarts() {
    Map<String, Long> logStarts = new HashMap<>();
    for (SimStream st : streams) {
      StreamInfo info = meta.read(r -> r.stream(SimContext.NS, st.name())).orElseThrow();
      for (int p = 0; p < st.partitions(); p++) {
        int partition = p;
        logStarts.put(
            st.name() + "/" + p,
            meta.read(r -> r.partition(info.id(), partition))
                .map(PartitionInfo::logStartOffset)
                .orElse(0L));
      }
    }
    return logStarts;
  }

  /**
   * An acknowledged append is at its offsets, unless a trim the retention rules allow removed it.
   */
  private void acknowledgedAtItsOffsets(
      History.Append a, Map<String, Long> logStarts, long streamId) {
    for (int i = 0; i < a.values().size(); i++) {
      AppendResult.RecordPosition pos = a.acked().positions().get(i);
      if (pos.offset() < logStarts.getOrDefault(a.stream().name() + "/" + pos.partition(), 0L)) {
        if (!retention.droppedAgainstRules(streamId, pos.partition(), pos.offset())) {
          trimmed++; // removed by retention within its rules: the retention working
          continue;
        }
        lost++;
        checker.violation(
            "acknowledged record dropped by a trim its retention rules forbid a="
                + a.id()
                + " at "
                + a.stream().name()
                + "/"
                + pos.partition()
                + "@"
                + pos.offset());
        continue;
      }
      String expected = a.stream().name() + "/" + pos.partition() + "@" + pos.offset();
      String got = where.get(a.values().get(i));
      if (!expected.equals(got)) {
        lost++;
        checker.violation(
            "acknowledged record not at its offset a="
                + a.id()
                + " expected="
                + expected
                + " got="
                + got);
      }
    }
  }

  /** Every attempt failed with a definite kind: nothing may have been appended. */
  private void definiteFailureAbsent(History.Append a) {
    for (String v : a.values()) {
      if (where.containsKey(v)) {
        absentDefinite++;
        checker.violation(
            "append that failed definitely is present a=" + a.id() + " at " + where.get(v));
      }
    }
  }

  private static String abbreviate(String v) {
    return v.length() > 40 ? v.substring(0, 40) + "..." : v;
  }
}
