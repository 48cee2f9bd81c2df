package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.ClaimEvents;
import dev.loam.meta.command.CompleteEvents;
import dev.loam.meta.command.CompletedEvent;
import dev.loam.meta.command.EventKey;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.EventClaim;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PruneEvents;
import dev.loam.meta.command.ReleaseEvents;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The CloudEvents dedupe ledger (docs/formats/metastore-commands.md "The CloudEvents dedupe
 * ledger", metastore-snapshot.md version 9): per stream, idempotency keys pending under a claim or
 * done with the first write's offset, each until it expires on the metastore clock. Expired entries
 * count as absent and stay until {@link PruneEvents} removes them, so the state is a function of
 * the applied commands only.
 */
final class EventLedgerTable {
  /** The longest pending time and dedup window a command may ask for: 24 hours. */
  static final long MAX_MILLIS = 86_400_000L;

  /** The most entries one PruneEvents may remove. */
  static final int MAX_PRUNE = 100_000;

  /** The most keys one claim may hold. */
  static final int MAX_KEYS = 10_000;

  /** Snapshot bytes of an entry before its state-specific fields: stream, key, state, expiry. */
  private static final int ENTRY_HEAD = 8 + EventKey.LENGTH + 1 + 8;

  private record Key(long streamId, EventKey key) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = Long.compare(streamId, o.streamId);
      return c != 0 ? c : key.compareTo(o.key);
    }
  }

  /** One entry: pending under {@code claimId} (partition -1), or done at partition/offset. */
  private record Entry(
      boolean done, long expiresAtMillis, long claimId, int partition, long offset) {}

  private final Catalog catalog;
  private final TreeMap<Key, Entry> entries = new TreeMap<>();

  EventLedgerTable(Catalog catalog) {
    this.catalog = catalog;
  }

  Outcome claim(ClaimEvents c, long claimId, long now) {
    if (!catalog.streamsById().containsKey(c.streamId())) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    if (c.pendingMillis() < 1 || c.pendingMillis() > MAX_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "pendingMillis must be in 1.." + MAX_MILLIS + " pendingMillis=" + c.pendingMillis());
    }
    if (c.keys().isEmpty() || c.keys().size() > MAX_KEYS) {
      return rejected(
          RejectReason.INVALID, "a claim holds 1.." + MAX_KEYS + " keys count=" + c.keys().size());
    }
    if (new HashSet<>(c.keys()).size() != c.keys().size()) {
      return rejected(RejectReason.INVALID, "a claim names each key once streamId=" + c.streamId());
    }
    long expires = now + c.pendingMillis();
    List<EventClaim> out = new ArrayList<>(c.keys().size());
    for (EventKey k : c.keys()) {
      Key key = new Key(c.streamId(), k);
      Entry e = entries.get(key);
      if (e != null && e.expiresAtMillis() > now) {
        out.add(
            e.done()
                ? EventClaim.duplicate(e.partition(), e.offset())
                : EventClaim.inFlight(e.expiresAtMillis()));
        continue;
      }
      entries.put(key, new Entry(false, expires, claimId, -1, -1));
      out.add(EventClaim.claimed());
    }
    return new Outcome.EventsClaimed(claimId, expires, out);
  }

  Outcome complete(CompleteEvents c, long now) {
    Catalog.StreamState s = catalog.streamsById().get(c.streamId());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    if (c.windowMillis() < 1 || c.windowMillis() > MAX_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "windowMillis must be in 1.." + MAX_MILLIS + " windowMillis=" + c.windowMillis());
    }
    if (c.events().isEmpty() || c.events().size() > MAX_KEYS) {
      return rejected(
          RejectReason.INVALID,
          "a completion holds 1.." + MAX_KEYS + " keys count=" + c.events().size());
    }
    for (CompletedEvent e : c.events()) {
      if (e.partition() < 0 || e.partition() >= s.partitions.length || e.offset() < 0) {
        return rejected(
            RejectReason.INVALID,
            "no such partition or a negative offset streamId="
                + c.streamId()
                + " partition="
                + e.partition()
                + " offset="
                + e.offset());
      }
    }
    int completed = 0;
    int notHeld = 0;
    for (CompletedEvent e : c.events()) {
      Key key = new Key(c.streamId(), e.key());
      Entry cur = entries.get(key);
      if (cur == null || cur.done() || cur.claimId() != c.claimId()) {
        notHeld++;
        continue;
      }
      entries.put(key, new Entry(true, now + c.windowMillis(), 0, e.partition(), e.offset()));
      completed++;
    }
    return new Outcome.EventsCompleted(completed, notHeld);
  }

  Outcome release(ReleaseEvents c) {
    int removed = 0;
    for (EventKey k : c.keys()) {
      Key key = new Key(c.streamId(), k);
      Entry cur = entries.get(key);
      if (cur != null && !cur.done() && cur.claimId() == c.claimId()) {
        entries.remove(key);
        removed++;
      }
    }
    return new Outcome.EventsRemoved(removed);
  }

  Outcome prune(PruneEvents c, long now) {
    if (c.maxEntries() < 1 || c.maxEntries() > MAX_PRUNE) {
      return rejected(
          RejectReason.INVALID,
          "maxEntries must be in 1.." + MAX_PRUNE + " maxEntries=" + c.maxEntries());
    }
    List<Map.Entry<Key, Entry>> expired = new ArrayList<>();
    for (Map.Entry<Key, Entry> e : entries.entrySet()) {
      if (e.getValue().expiresAtMillis() <= now) {
        expired.add(e);
      }
    }
    expired.sort(
        Comparator.<Map.Entry<Key, Entry>>comparingLong(e -> e.getValue().expiresAtMillis())
            .thenComparing(Map.Entry::getKey));
    int n = Math.min(c.maxEntries(), expired.size());
    for (int i = 0; i < n; i++) {
      entries.remove(expired.get(i).getKey());
    }
    return new Outcome.EventsRemoved(n);
  }

  /** Deleting a stream drops its entries. */
  void dropStream(long streamId) {
    entries.subMap(new Key(streamId, MIN_KEY), true, new Key(streamId, MAX_KEY), true).clear();
  }

  private static final EventKey MIN_KEY = new EventKey(new byte[EventKey.LENGTH]);
  private static final EventKey MAX_KEY;

  static {
    byte[] max = new byte[EventKey.LENGTH];
    java.util.Arrays.fill(max, (byte) 0xff);
    MAX_KEY = new EventKey(max);
  }

  /** No entry: nothing for a version 9 section to hold. */
  boolean isDefault() {
    return entries.isEmpty();
  }

  int size() {
    return entries.size();
  }

  /** Entries expired at {@code now}. */
  long expired(long now) {
    long n = 0;
    for (Entry e : entries.values()) {
      if (e.expiresAtMillis() <= now) {
        n++;
      }
    }
    return n;
  }

  /** Entries of the stream, expired ones included, for readers and tests. */
  int count(long streamId) {
    return entries
        .subMap(new Key(streamId, MIN_KEY), true, new Key(streamId, MAX_KEY), true)
        .size();
  }

  // ---- snapshot section (version 9)

  void write(BinaryWriter w) {
    w.i32(entries.size());
    for (Map.Entry<Key, Entry> e : entries.entrySet()) {
      Entry v = e.getValue();
      w.i64(e.getKey().streamId()).raw(e.getKey().key().bytes());
      w.u8(v.done() ? 2 : 1).i64(v.expiresAtMillis());
      if (v.done()) {
        w.i32(v.partition()).i64(v.offset());
      } else {
        w.i64(v.claimId());
      }
    }
  }

  /** Reads the section {@link #write} wrote (at least one entry); the catalog must be restored. */
  void read(BinaryReader r, int version) {
    int n = r.count("ledger.count", ENTRY_HEAD + 8);
    if (n == 0 && version == 9) {
      throw r.corrupt("ledger.count", "a version 9 snapshot holds at least one ledger entry");
    }
    Key prev = null;
    for (int i = 0; i < n; i++) {
      long streamId = r.i64("ledger.streamId");
      EventKey key = new EventKey(r.raw(EventKey.LENGTH, "ledger.key"));
      Key k = new Key(streamId, key);
      if (prev != null && prev.compareTo(k) >= 0) {
        throw r.corrupt("ledger.key", "entries must be sorted and unique");
      }
      prev = k;
      Catalog.StreamState s = catalog.streamsById().get(streamId);
      if (s == null) {
        throw r.corrupt("ledger.streamId", "unknown stream streamId=" + streamId);
      }
      int state = r.u8("ledger.state");
      long expires = r.i64("ledger.expiresAtMillis");
      if (expires < 0) {
        throw r.corrupt("ledger.expiresAtMillis", "negative expiresAtMillis=" + expires);
      }
      Entry e;
      if (state == 1) {
        long claimId = r.i64("ledger.claimId");
        if (claimId <= 0) {
          throw r.corrupt("ledger.claimId", "claimId must be > 0 claimId=" + claimId);
        }
        e = new Entry(false, expires, claimId, -1, -1);
      } else if (state == 2) {
        int p = r.i32("ledger.partition");
        long offset = r.i64("ledger.offset");
        if (p < 0 || p >= s.partitions.length) {
          throw r.corrupt("ledger.partition", "no such partition partition=" + p);
        }
        if (offset < 0) {
          throw r.corrupt("ledger.offset", "negative offset=" + offset);
        }
        e = new Entry(true, expires, 0, p, offset);
      } else {
        throw r.corrupt("ledger.state", "unknown state=" + state);
      }
      entries.put(k, e);
    }
  }

  @Override
  public String toString() {
    return "EventLedgerTable{entries=" + entries.size() + "}";
  }
}
