package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.RetiredObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The object lifecycle of the metastore state (stream-engine.txt §5, D27): how many index entries
 * reference each object (WAL objects and segments), and the objects no entry references any more,
 * awaiting GC. Keeps the counts and the two retired indexes consistent, applies DeleteObjects (the
 * GC's confirmation), and writes and reads its snapshot section.
 */
final class ObjectLedger {
  /**
   * Object key -> number of index entries referencing it (WAL objects and segments). Derived from
   * the entries, so not stored in snapshots but rebuilt on restore.
   */
  private final HashMap<String, Integer> refs = new HashMap<>();

  /** Objects no entry references any more, awaiting GC (stream-engine.txt §5, D27). */
  private final HashMap<String, RetiredObject> retiredByKey = new HashMap<>();

  /** The same, oldest retirement first: the GC's work order. */
  private final TreeSet<RetiredObject> retiredByTime =
      new TreeSet<>(
          Comparator.comparingLong(RetiredObject::retiredAtMillis)
              .thenComparing(RetiredObject::objectKey));

  /** Appends {@code e} to {@code p}'s index and counts its reference. */
  void addEntry(PartitionState p, IndexEntry e) {
    p.addEntry(e);
    refs.merge(e.objectKey(), 1, Integer::sum);
  }

  /** Counts {@code count} new references to {@code key}, which nothing referenced before. */
  void referenced(String key, int count) {
    refs.put(key, count);
  }

  /** Drops one reference to {@code key}; the last one retires the object at {@code nowMillis}. */
  void unref(String key, long nowMillis) {
    Integer n = refs.get(key);
    if (n == null) {
      throw new IllegalStateException("unreferenced object lost a reference object=" + key);
    }
    if (n == 1) {
      refs.remove(key);
      retire(key, nowMillis);
    } else {
      refs.put(key, n - 1);
    }
  }

  void retire(String key, long nowMillis) {
    if (!retiredByKey.containsKey(key)) {
      RetiredObject r = new RetiredObject(key, nowMillis);
      retiredByKey.put(key, r);
      retiredByTime.add(r);
    }
  }

  boolean isReferenced(String key) {
    return refs.containsKey(key);
  }

  /** Referenced, or retired and not yet confirmed deleted: the key cannot name a new object. */
  boolean inUse(String key) {
    return refs.containsKey(key) || retiredByKey.containsKey(key);
  }

  Outcome deleteObjects(DeleteObjects c) {
    if (c.objectKeys().size() > DeleteObjects.MAX_KEYS) {
      return rejected(
          RejectReason.INVALID,
          "too many keys max=" + DeleteObjects.MAX_KEYS + " keys=" + c.objectKeys().size());
    }
    int removed = 0;
    for (String key : c.objectKeys()) {
      RetiredObject r = retiredByKey.remove(key);
      if (r != null) {
        retiredByTime.remove(r);
        removed++;
      }
    }
    return new Outcome.ObjectsDeleted(removed);
  }

  // ---- reads

  int refs(String key) {
    return refs.getOrDefault(key, 0);
  }

  Optional<RetiredObject> retired(String key) {
    return Optional.ofNullable(retiredByKey.get(key));
  }

  List<RetiredObject> retiredObjects(int maxObjects) {
    List<RetiredObject> out = new ArrayList<>(Math.min(Math.max(maxObjects, 0), 1024));
    for (RetiredObject r : retiredByTime) {
      if (out.size() >= maxObjects) {
        break;
      }
      out.add(r);
    }
    return out;
  }

  int retiredCount() {
    return retiredByKey.size();
  }

  boolean hasRetired() {
    return !retiredByTime.isEmpty();
  }

  // ---- snapshot section (docs/formats/metastore-snapshot.md)

  /** Rebuilds the reference counts from the restored index entries (they are not stored). */
  void countReferences(Iterable<Catalog.StreamState> streams) {
    for (Catalog.StreamState s : streams) {
      for (PartitionState p : s.partitions) {
        for (IndexEntry e : p.entries) {
          refs.merge(e.objectKey(), 1, Integer::sum);
        }
      }
    }
  }

  /** The retired objects, oldest first (v2: at least one; v3 and later: any number). */
  void writeRetired(BinaryWriter w) {
    w.i32(retiredByTime.size());
    for (RetiredObject r : retiredByTime) {
      w.string(r.objectKey()).i64(r.retiredAtMillis());
    }
  }

  /** Reads the retired section; the reference counts must be rebuilt first. */
  void readRetired(BinaryReader r, int version) {
    int nRetired = r.count("retired.count", 4 + 8);
    if (version == 2 && nRetired < 1) {
      throw r.corrupt("retired.count", "a v2 snapshot holds at least one retired object");
    }
    RetiredObject prev = null;
    for (int i = 0; i < nRetired; i++) {
      RetiredObject ro = new RetiredObject(r.string("retired.objectKey"), r.i64("retired.time"));
      if (prev != null && retiredByTime.comparator().compare(prev, ro) >= 0) {
        throw r.corrupt("retired.objectKey", "retired objects not sorted object=" + ro.objectKey());
      }
      if (refs.containsKey(ro.objectKey()) || retiredByKey.put(ro.objectKey(), ro) != null) {
        throw r.corrupt(
            "retired.objectKey",
            "retired object is referenced or duplicate object=" + ro.objectKey());
      }
      retiredByTime.add(ro);
      prev = ro;
    }
  }
}
