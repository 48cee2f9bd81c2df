package dev.loam.sim.check;

import dev.loam.api.FetchResult;
import dev.loam.api.FetchedRecord;
import dev.loam.meta.ApplyListener;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.WalCommits;
import dev.loam.sim.SimClock;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The invariants of a run (docs/design/simulation.md), in the spirit of Jepsen's queue checkers.
 * Checked as events happen, where cheap:
 *
 * <ul>
 *   <li>per partition, every appended batch starts at the high watermark (offsets dense, never
 *       reused), seen on every CommitWal the metastore applies;
 *   <li>no command stamped more than the future-stamp limit ahead of the metastore's clock is ever
 *       applied (the 60 s refusal holds under clock skew);
 *   <li>no two different records are ever observed at one offset (acks and fetches);
 *   <li>a fetch returns consecutive offsets from the one asked for.
 * </ul>
 *
 * Violations are collected (not thrown), so a run reports all of them with its seed.
 */
public final class Checker implements ApplyListener {
  /** A partition of a stream, by name. */
  public record Part(String stream, int partition) {
    @Override
    public String toString() {
      return stream + "/" + partition;
    }
  }

  private final SimClock clock;
  private final long maxFutureStampMillis;
  private final List<String> violations = new ArrayList<>();
  private final Map<Long, Long> nextOffsetByPartitionKey = new HashMap<>();
  private final Map<Part, TreeMap<Long, String>> observed = new HashMap<>();

  /** Per partition: consistency token of an acknowledgement → the end offset it acknowledged. */
  private final Map<Part, TreeMap<Long, Long>> ackedEndByToken = new HashMap<>();

  private long readYourWritesChecked;
  private long fetchesChecked;
  private long observations;

  /**
   * @param maxFutureStampMillis how far ahead of the metastore's clock a command may be stamped
   */
  public Checker(SimClock clock, long maxFutureStampMillis) {
    this.clock = clock;
    this.maxFutureStampMillis = maxFutureStampMillis;
  }

  /** The violations found so far, each prefixed with its simulated time. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /**
   * Records a violation; only the first 100 are kept, so a run broken on every event stays
   * reportable.
   */
  public void violation(String v) {
    if (violations.size() < 100) {
      violations.add("t=" + clock.millis() + " " + v);
    }
  }

  /** Fetch results checked so far. */
  public long fetchesChecked() {
    return fetchesChecked;
  }

  /** Records observed at their offsets so far. */
  public long observations() {
    return observations;
  }

  // ------------------------------------------------------------------ metastore (every apply)

  @Override
  public void onApplied(long index, Command command, Outcome outcome) {
    long stamp = command.origin().stampMillis();
    if (stamp > clock.millis() + maxFutureStampMillis) {
      violation(
          "applied a command stamped too far ahead index="
              + index
              + " stamp="
              + stamp
              + " clock="
              + clock.millis());
    }
    for (WalCommits.Committed committed : WalCommits.of(command, outcome)) {
      CommitWal c = committed.commit();
      Outcome.WalCommitted wc = committed.outcome();
      if (wc.deduplicated()) {
        continue;
      }
      for (int i = 0; i < c.chunks().size(); i++) {
        CommitWal.ChunkCommit chunk = c.chunks().get(i);
        long key = chunk.streamId() * 1_000_003L + chunk.partition();
        for (int j = 0; j < chunk.batches().size(); j++) {
          Outcome.BatchResult r = wc.chunks().get(i).get(j);
          if (r.status() != Outcome.BatchStatus.APPENDED) {
            continue;
          }
          long expected = nextOffsetByPartitionKey.getOrDefault(key, 0L);
          if (r.baseOffset() != expected) {
            violation(
                "offsets not dense streamId="
                    + chunk.streamId()
                    + " partition="
                    + chunk.partition()
                    + " baseOffset="
                    + r.baseOffset()
                    + " expected="
                    + expected
                    + " index="
                    + index);
          }
          nextOffsetByPartitionKey.put(key, r.baseOffset() + chunk.batches().get(j).recordCount());
        }
      }
    }
  }

  // ------------------------------------------------------------------ observations

  /** A record seen at an offset, by an ack or a fetch: one offset never holds two records. */
  public void observe(Part p, long offset, String value, String source) {
    observations++;
    TreeMap<Long, String> m = observed.computeIfAbsent(p, k -> new TreeMap<>());
    String prev = m.putIfAbsent(offset, value);
    if (prev != null && !prev.equals(value)) {
      violation(
          "two records at one offset part="
              + p
              + " offset="
              + offset
              + " first="
              + prev
              + " now="
              + value
              + " source="
              + source);
    }
  }

  /** A fetch from {@code from} answered: consecutive offsets from {@code from}, consistent. */
  public void checkFetch(Part p, long from, FetchResult r, String source) {
    fetchesChecked++;
    long expect = from;
    for (FetchedRecord rec : r.records()) {
      if (rec.offset() != expect) {
        violation(
            "fetch out of order part="
                + p
                + " from="
                + from
                + " expected="
                + expect
                + " got="
                + rec.offset()
                + " source="
                + source);
        return;
      }
      if (rec.partition() != p.partition()) {
        violation("fetch returned another partition part=" + p + " got=" + rec.partition());
      }
      observe(p, rec.offset(), value(rec), source);
      expect++;
    }
    if (!r.records().isEmpty() && r.nextOffset() != expect) {
      violation(
          "fetch nextOffset part=" + p + " nextOffset=" + r.nextOffset() + " expected=" + expect);
    }
  }

  /**
   * An append acknowledged {@code offset} with consistency token {@code token}. Offsets of a
   * partition are assigned in log order, so the acknowledgement with the greatest token at most t
   * holds the greatest offset any read with min_token t must see.
   */
  public void acknowledged(Part p, long offset, long token) {
    ackedEndByToken.computeIfAbsent(p, k -> new TreeMap<>()).merge(token, offset + 1, Math::max);
  }

  /**
   * Read-your-writes: a fetch answered with min_token {@code token} on any node sees every record
   * acknowledged with a token at most {@code token}, so its high watermark is past them.
   */
  public void checkReadYourWrites(Part p, long token, FetchResult r, String source) {
    TreeMap<Long, Long> acks = ackedEndByToken.get(p);
    Map.Entry<Long, Long> e = acks == null ? null : acks.floorEntry(token);
    if (e == null) {
      return;
    }
    readYourWritesChecked++;
    if (r.highWatermark() < e.getValue()) {
      violation(
          "read-your-writes: a fetch with min_token="
              + token
              + " does not see offset "
              + (e.getValue() - 1)
              + " acknowledged with token="
              + e.getKey()
              + " part="
              + p
              + " highWatermark="
              + r.highWatermark()
              + " source="
              + source);
    }
  }

  /** Fetches with a consistency token judged by {@link #checkReadYourWrites}. */
  public long readYourWritesChecked() {
    return readYourWritesChecked;
  }

  /** A record's value as text; the simulation writes UTF-8 values that name their append. */
  public static String value(FetchedRecord r) {
    return r.value() == null ? "<null>" : new String(r.value(), StandardCharsets.UTF_8);
  }
}
