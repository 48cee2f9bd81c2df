package dev.loam.sim.check;

import dev.loam.meta.ApplyListener;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.WalCommits;
import dev.loam.sim.SimClock;
import dev.loam.sim.SimStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * An independent model of the retention rules (docs/design/maintenance.md "TrimPartition", the
 * spec's §5 "Retention"), judging every trim the metastore applies. It is written from the rules,
 * not from the code that plans ({@code RetentionTask}) or checks ({@code SegmentRules}) trims:
 *
 * <ul>
 *   <li>it keeps its own copy of every partition's committed batches (base offset, records, bytes,
 *       newest timestamp), taken from the {@link CommitWal} commands as they are applied;
 *   <li>a {@code TIME} trim may drop only batches whose newest timestamp is older than the true
 *       clock minus the stream's {@code retentionMillis} (the metastore's clock is the largest
 *       command stamp, never ahead of the true clock in a run, so this bound is never stricter than
 *       the metastore's own);
 *   <li>a {@code SIZE} trim may drop only while the batches kept hold at least the stream's {@code
 *       retentionBytes}, and never the newest batch (the newest index entry holds it);
 *   <li>every trim ends at a batch boundary, never beyond the high watermark.
 * </ul>
 *
 * A trim beyond what its rule allows is a violation, and the offsets it dropped while the rule said
 * they must stay are remembered: an acknowledged record among them is lost ({@link
 * FinalValidation}). Segment swaps regroup batches into fewer index entries without changing the
 * batches' bytes, so the model needs no entries of its own. After healing, {@link #checkEnforced}
 * checks the other direction: retention was applied, so no partition keeps an oldest entry the
 * rules let it drop.
 */
public final class RetentionModel implements ApplyListener {
  /** How long after an entry falls out of the time retention it may still be there at the end. */
  static final long TIME_ENFORCEMENT_SLACK_MILLIS = 5_000;

  /** One partition's committed batches, in offset order, and the model's log start. */
  private static final class Part {
    private long[] base = new long[64];
    private long[] cumBytes = new long[65]; // cumBytes[i]: bytes of batches 0..i-1
    private long[] maxTimestamp = new long[64];
    private int n;
    private long highWatermark;
    private long logStart;
    private final List<long[]> droppedAgainstRules = new ArrayList<>();

    void add(long baseOffset, int records, int bytes, long ts) {
      if (n == base.length) {
        base = Arrays.copyOf(base, 2 * n);
        maxTimestamp = Arrays.copyOf(maxTimestamp, 2 * n);
        cumBytes = Arrays.copyOf(cumBytes, 2 * n + 1);
      }
      base[n] = baseOffset;
      maxTimestamp[n] = ts;
      cumBytes[n + 1] = cumBytes[n] + bytes;
      n++;
      highWatermark = baseOffset + records;
    }

    /**
     * The index of the batch starting at {@code offset}, {@code n} at the high watermark, or -1.
     */
    int indexOf(long offset) {
      if (offset == highWatermark) {
        return n;
      }
      int i = Arrays.binarySearch(base, 0, n, offset);
      return i >= 0 ? i : -1;
    }

    /** The index of the batch holding {@code offset} (or {@code n} past the high watermark). */
    int batchAt(long offset) {
      if (offset >= highWatermark) {
        return n;
      }
      int i = Arrays.binarySearch(base, 0, n, offset);
      return i >= 0 ? i : -i - 2;
    }

    long keptBytesFrom(int i) {
      return cumBytes[n] - cumBytes[i];
    }

    /**
     * A segment swap replaced the batches from {@code from} by {@code entries} (consecutive, each
     * spanning its record count of offsets): their bytes become the entries' (a sealed segment's
     * batches carry their authentication tags, a compacted one's lost records), as the system's
     * size rule counts them. Entries whose edges do not fall on the model's batch edges leave the
     * model as it was.
     */
    void replaceBytes(long from, List<SwapSegment.SegmentEntry> entries) {
      long[] bytes = new long[n];
      for (int k = 0; k < n; k++) {
        bytes[k] = cumBytes[k + 1] - cumBytes[k];
      }
      long offset = from;
      for (SwapSegment.SegmentEntry e : entries) {
        int i = indexOf(offset);
        int j = indexOf(offset + e.recordCount());
        offset += e.recordCount();
        if (i < 0 || j < 0 || j <= i || j > n) {
          return;
        }
        bytes[i] = e.byteLength();
        for (int k = i + 1; k < j; k++) {
          bytes[k] = 0;
        }
      }
      for (int k = 0; k < n; k++) {
        cumBytes[k + 1] = cumBytes[k] + bytes[k];
      }
    }
  }

  private final SimClock clock;
  private final Checker checker;
  private final LongFunction<SimStream> streamById;
  private final Map<Long, Part> parts = new HashMap<>();
  private long trimsJudged;

  /**
   * @param streamById the run's stream of a metastore stream id, or null for a stream the run did
   *     not create
   */
  public RetentionModel(SimClock clock, Checker checker, LongFunction<SimStream> streamById) {
    this.clock = clock;
    this.checker = checker;
    this.streamById = streamById;
  }

  /** Trims the model judged (every applied trim that moved a log start). */
  public long trimsJudged() {
    return trimsJudged;
  }

  private static long key(long streamId, int partition) {
    return streamId * 1_000_003L + partition;
  }

  private Part part(long streamId, int partition) {
    return parts.computeIfAbsent(key(streamId, partition), k -> new Part());
  }

  @Override
  public void onApplied(long index, Command command, Outcome outcome) {
    Command inner = command instanceof OwnerFenced f ? f.inner() : command;
    for (WalCommits.Committed committed : WalCommits.of(command, outcome)) {
      CommitWal c = committed.commit();
      Outcome.WalCommitted wc = committed.outcome();
      if (wc.deduplicated()) {
        continue;
      }
      for (int i = 0; i < c.chunks().size(); i++) {
        CommitWal.ChunkCommit chunk = c.chunks().get(i);
        for (int j = 0; j < chunk.batches().size(); j++) {
          Outcome.BatchResult r = wc.chunks().get(i).get(j);
          if (r.status() == Outcome.BatchStatus.APPENDED) {
            CommitWal.BatchCommit b = chunk.batches().get(j);
            part(chunk.streamId(), chunk.partition())
                .add(r.baseOffset(), b.recordCount(), b.byteLength(), b.maxTimestamp());
          }
        }
      }
    }
    if (inner instanceof SwapSegment sw
        && outcome instanceof Outcome.SegmentSwapped swapped
        && !swapped.deduplicated()
        && swapped.entriesReplaced() > 0) {
      part(sw.streamId(), sw.partition()).replaceBytes(sw.fromOffset(), sw.entries());
    }
    if (inner instanceof TrimPartition t && outcome instanceof Outcome.Trimmed tr) {
      judge(t, tr.logStartOffset());
    }
  }

  /** Judges a trim that moved the log start of its partition to {@code newStart}. */
  private void judge(TrimPartition t, long newStart) {
    Part p = part(t.streamId(), t.partition());
    long from = p.logStart;
    if (newStart <= from) {
      return;
    }
    trimsJudged++;
    p.logStart = newStart;
    SimStream st = streamById.apply(t.streamId());
    String where =
        (st == null ? "stream#" + t.streamId() : st.name())
            + "/"
            + t.partition()
            + " reason="
            + t.reason()
            + " logStart "
            + from
            + " -> "
            + newStart;
    if (p.indexOf(newStart) < 0) {
      checker.violation(
          "trim ends inside a batch or beyond the high watermark "
              + where
              + " highWatermark="
              + p.highWatermark);
    }
    long limit = st == null ? from : limit(p, st, t.reason(), from);
    if (newStart > limit) {
      p.droppedAgainstRules.add(new long[] {limit, newStart});
      checker.violation(
          "retention dropped records its rules keep "
              + where
              + " rule allows up to "
              + limit
              + " "
              + ruleText(p, st, t.reason(), from, newStart));
    }
  }

  /** The largest log start the trim's rule allows now, at least {@code from}. */
  private long limit(Part p, SimStream st, TrimPartition.Reason reason, long from) {
    int i = p.batchAt(from);
    if (reason == TrimPartition.Reason.TIME) {
      if (st.retentionMillis() < 0) {
        return from;
      }
      long horizon = clock.millis() - st.retentionMillis();
      while (i < p.n && p.maxTimestamp[i] < horizon) {
        i++;
      }
      return i < p.n ? p.base[i] : p.highWatermark;
    }
    if (st.retentionBytes() < 0 || i >= p.n) {
      return from;
    }
    // Drop the oldest batch while what stays still holds the limit; the newest batch always stays.
    while (i < p.n - 1 && p.keptBytesFrom(i + 1) >= st.retentionBytes()) {
      i++;
    }
    return Math.max(from, p.base[i]);
  }

  private String ruleText(
      Part p, SimStream st, TrimPartition.Reason reason, long from, long newStart) {
    if (st == null) {
      return "(a stream the run did not create)";
    }
    int to = p.batchAt(newStart);
    if (reason == TrimPartition.Reason.TIME) {
      long newest = Long.MIN_VALUE;
      for (int i = p.batchAt(from); i < to; i++) {
        newest = Math.max(newest, p.maxTimestamp[i]);
      }
      return "retentionMillis="
          + st.retentionMillis()
          + " newest dropped timestamp is "
          + (clock.millis() - newest)
          + "ms old";
    }
    return "retentionBytes="
        + st.retentionBytes()
        + " bytes kept="
        + p.keptBytesFrom(Math.min(to, p.n))
        + " (before the trim "
        + p.keptBytesFrom(p.batchAt(from))
        + ") batches kept="
        + (p.n - Math.min(to, p.n));
  }

  /**
   * Whether a trim dropped {@code offset} of the partition while the retention rules said it must
   * stay.
   */
  public boolean droppedAgainstRules(long streamId, int partition, long offset) {
    Part p = parts.get(key(streamId, partition));
    if (p == null) {
      return false;
    }
    for (long[] r : p.droppedAgainstRules) {
      if (offset >= r[0] && offset < r[1]) {
        return true;
      }
    }
    return false;
  }

  /** The log start the model holds for a partition (0 before any trim). */
  public long logStart(long streamId, int partition) {
    Part p = parts.get(key(streamId, partition));
    return p == null ? 0 : p.logStart;
  }

  /**
   * After healing (retention has had many maintenance passes with no faults): a partition keeps no
   * oldest index entry its rules let it drop. By size: the partition exceeds its limit by less than
   * its oldest entry (Kafka's rule), unless only the newest entry is left. By time: its oldest
   * entry is not older than the retention by more than a few seconds (a maintenance pass every 2
   * s).
   *
   * @param entries the partition's index entries from its log start, as the metastore holds them
   */
  public void checkEnforced(SimStream st, long streamId, int partition, List<IndexEntry> entries) {
    if (entries.isEmpty()) {
      return;
    }
    Part p = part(streamId, partition);
    IndexEntry oldest = entries.get(0);
    if (st.retentionBytes() >= 0 && entries.size() > 1) {
      long kept = p.keptBytesFrom(p.batchAt(p.logStart));
      if (kept - oldest.byteLength() >= st.retentionBytes()) {
        checker.violation(
            "size retention not enforced part="
                + st.name()
                + "/"
                + partition
                + " retentionBytes="
                + st.retentionBytes()
                + " bytes kept="
                + kept
                + " oldest entry="
                + oldest.byteLength()
                + " bytes, dropping it would keep at least the limit");
      }
    }
    if (st.retentionMillis() >= 0
        && oldest.maxTimestamp()
            < clock.millis() - st.retentionMillis() - TIME_ENFORCEMENT_SLACK_MILLIS) {
      checker.violation(
          "time retention not enforced part="
              + st.name()
              + "/"
              + partition
              + " retentionMillis="
              + st.retentionMillis()
              + " oldest entry's newest record is "
              + (clock.millis() - oldest.maxTimestamp())
              + "ms old");
    }
  }
}
