package dev.loam.meta.state;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.Outcome;
import java.util.Comparator;
import java.util.HashMap;
import java.util.TreeSet;

/**
 * The commit dedupe records of the sequencer (stream-engine.txt §3 commit window): each committed
 * object's first outcome, kept for the dedupe retention so that a retried CommitWal gets the first
 * commit's offsets and appends nothing. Keeps the two indexes (by key, by object time) consistent,
 * prunes a bounded number per apply, and writes and reads its snapshot section. {@link Sequencer}
 * applies the rules.
 */
final class DedupeLedger {
  /**
   * Dedupe records pruned per apply at most: a bound on the work of one apply (STYLE.md §9). Each
   * apply adds at most one record, so any bound >= 2 keeps up; lookups treat an expired record as
   * absent anyway, so a late prune never changes an outcome.
   */
  static final int MAX_PRUNE_PER_APPLY = 16;

  /** A committed object's first outcome, kept for the dedupe window (§3 commit window). */
  record DedupeRecord(String objectKey, long objectTimeMillis, Outcome.WalCommitted outcome) {}

  private final long retentionMillis;

  private final HashMap<String, DedupeRecord> byKey = new HashMap<>();

  /** The same records, oldest object time first, for bounded pruning. */
  private final TreeSet<DedupeRecord> byTime =
      new TreeSet<>(
          Comparator.comparingLong(DedupeRecord::objectTimeMillis)
              .thenComparing(DedupeRecord::objectKey));

  /**
   * Records whose outcome holds a verdict only fenced batches get (ALREADY_APPENDED, WRITER_FENCED,
   * SOURCE_GAP, SOURCE_OVERLAP): while there is one, the snapshot needs version 11, since older
   * readers know none of those codes.
   */
  private int fencedVerdicts;

  DedupeLedger(long retentionMillis) {
    this.retentionMillis = retentionMillis;
  }

  /** The record of {@code objectKey}, expired or not; null if there is none. */
  DedupeRecord get(String objectKey) {
    return byKey.get(objectKey);
  }

  boolean expired(DedupeRecord r, long nowMillis) {
    return r.objectTimeMillis() < nowMillis - retentionMillis;
  }

  /**
   * Records the first outcome of {@code objectKey}, replacing {@code previous} (an expired one).
   */
  void put(DedupeRecord previous, DedupeRecord rec) {
    if (previous != null) {
      byTime.remove(previous);
      fencedVerdicts -= fenced(previous) ? 1 : 0;
    }
    byKey.put(rec.objectKey(), rec);
    byTime.add(rec);
    fencedVerdicts += fenced(rec) ? 1 : 0;
  }

  /** Whether some record holds a fenced batch's verdict (see {@link #fencedVerdicts}). */
  boolean holdsFencedVerdicts() {
    return fencedVerdicts > 0;
  }

  private static boolean fenced(DedupeRecord r) {
    for (var chunk : r.outcome().chunks()) {
      for (Outcome.BatchResult b : chunk) {
        switch (b.status()) {
          case ALREADY_APPENDED, WRITER_FENCED, SOURCE_GAP, SOURCE_OVERLAP -> {
            return true;
          }
          default -> {}
        }
      }
    }
    return false;
  }

  /** Drops dedupe records older than the retention, oldest first, a bounded number per apply. */
  void prune(long nowMillis) {
    for (int i = 0; i < MAX_PRUNE_PER_APPLY && !byTime.isEmpty(); i++) {
      DedupeRecord oldest = byTime.first();
      if (!expired(oldest, nowMillis)) {
        return;
      }
      byTime.pollFirst();
      byKey.remove(oldest.objectKey());
      fencedVerdicts -= fenced(oldest) ? 1 : 0;
    }
  }

  int size() {
    return byKey.size();
  }

  // ---- snapshot section (docs/formats/metastore-snapshot.md)

  void write(BinaryWriter w) {
    w.i32(byTime.size());
    for (DedupeRecord r : byTime) {
      w.string(r.objectKey()).i64(r.objectTimeMillis()).bytes(OutcomeCodec.encode(r.outcome()));
    }
  }

  void read(BinaryReader r) {
    int nDedupe = r.count("dedupe.count", 4 + 8 + 4);
    for (int i = 0; i < nDedupe; i++) {
      String key = r.string("dedupe.objectKey");
      long time = r.i64("dedupe.objectTimeMillis");
      byte[] outcomeBytes = r.bytes("dedupe.outcome");
      Outcome o = OutcomeCodec.decode(outcomeBytes);
      if (!(o instanceof Outcome.WalCommitted wc)) {
        throw r.corrupt("dedupe.outcome", "not a WalCommitted outcome object=" + key);
      }
      DedupeRecord rec = new DedupeRecord(key, time, wc);
      if (byKey.put(key, rec) != null) {
        throw r.corrupt("dedupe.objectKey", "duplicate object=" + key);
      }
      byTime.add(rec);
      fencedVerdicts += fenced(rec) ? 1 : 0;
    }
  }
}
