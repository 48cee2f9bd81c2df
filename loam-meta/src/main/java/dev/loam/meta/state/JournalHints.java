package dev.loam.meta.state;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.NodeInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The placement hints of quorum partitions (docs/design/quorum.md "Leader transfer"): the zone or
 * node id each hinted partition was assigned with, and the hint each journal's leader follows, the
 * one most of its partitions carry. Reads and writes its snapshot section (version 14 on).
 */
final class JournalHints {
  /** The longest placement hint. */
  static final int MAX_HINT = 128;

  private final JournalTable table;

  /** (stream, partition) → placement hint, for hinted partitions only, sorted for snapshots. */
  private final TreeMap<Long, TreeMap<Integer, String>> hints = new TreeMap<>();

  JournalHints(JournalTable table) {
    this.table = table;
  }

  boolean any() {
    return !hints.isEmpty();
  }

  void put(long streamId, int partition, String hint) {
    hints.computeIfAbsent(streamId, k -> new TreeMap<>()).put(partition, hint);
  }

  void dropStream(long streamId) {
    hints.remove(streamId);
  }

  /**
   * How well a journal suits a partition hinted {@code hint}, lower is better: 0 when a replica is
   * the hinted node or in the hinted zone and no partition of the journal carries another hint (its
   * leader can follow this one), 1 with a replica there but a conflicting hint on the journal, 2
   * with no replica there.
   */
  int tier(String journal, String hint, Map<String, NodeInfo> nodes) {
    boolean there = false;
    for (String id : table.replicas(journal).orElse(List.of())) {
      NodeInfo n = nodes.get(id);
      if (id.equals(hint) || (n != null && hint.equals(n.zone()))) {
        there = true;
        break;
      }
    }
    if (!there) {
      return 2;
    }
    String leader = leaderHint(journal).orElse(hint);
    return leader.equals(hint) && agreeing(journal, hint) ? 0 : 1;
  }

  /** Whether every hinted partition of the journal carries {@code hint}. */
  private boolean agreeing(String journal, String hint) {
    for (Map.Entry<Long, TreeMap<Integer, String>> e : hints.entrySet()) {
      for (Map.Entry<Integer, String> p : e.getValue().entrySet()) {
        if (!p.getValue().equals(hint)
            && journal.equals(table.journalOf(e.getKey(), p.getKey()).orElse(null))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The placement hint a journal's leader follows: the one carried by most of its hinted
   * partitions, ties by the smaller hint; empty when none of its partitions is hinted.
   */
  Optional<String> leaderHint(String journal) {
    TreeMap<String, Integer> votes = new TreeMap<>();
    for (Map.Entry<Long, TreeMap<Integer, String>> e : hints.entrySet()) {
      for (Map.Entry<Integer, String> p : e.getValue().entrySet()) {
        if (journal.equals(table.journalOf(e.getKey(), p.getKey()).orElse(null))) {
          votes.merge(p.getValue(), 1, Integer::sum);
        }
      }
    }
    String best = null;
    for (Map.Entry<String, Integer> v : votes.entrySet()) {
      if (best == null || v.getValue() > votes.get(best)) {
        best = v.getKey();
      }
    }
    return Optional.ofNullable(best);
  }

  /** The placement hint a partition was assigned with, if any. */
  Optional<String> of(long streamId, int partition) {
    TreeMap<Integer, String> m = hints.get(streamId);
    return Optional.ofNullable(m == null ? null : m.get(partition));
  }

  /** The section: hints sorted by (stream, partition), each of an assigned partition. */
  void write(BinaryWriter w) {
    write(w, hints);
  }

  /**
   * Writes a (stream, partition) → string map: count i32, each stream i64, partition i32, string.
   */
  static void write(BinaryWriter w, TreeMap<Long, TreeMap<Integer, String>> map) {
    int n = 0;
    for (TreeMap<Integer, String> m : map.values()) {
      n += m.size();
    }
    w.i32(n);
    for (Map.Entry<Long, TreeMap<Integer, String>> e : map.entrySet()) {
      for (Map.Entry<Integer, String> p : e.getValue().entrySet()) {
        w.i64(e.getKey()).i32(p.getKey()).string(p.getValue());
      }
    }
  }

  void read(BinaryReader r) {
    int n = r.count("journalHints.count", 14);
    long prevStream = -1;
    int prevPartition = -1;
    for (int i = 0; i < n; i++) {
      long stream = r.i64("journalHint.streamId");
      int partition = r.i32("journalHint.partition");
      String hint = r.string("journalHint.hint");
      if (stream < prevStream || (stream == prevStream && partition <= prevPartition)) {
        throw r.corrupt(
            "journalHint", "unsorted or duplicate stream=" + stream + " partition=" + partition);
      }
      if (table.journalOf(stream, partition).isEmpty()) {
        throw r.corrupt(
            "journalHint",
            "a hint of an unassigned partition stream=" + stream + " partition=" + partition);
      }
      if (hint.isBlank() || hint.length() > MAX_HINT) {
        throw r.corrupt("journalHint.hint", "blank or too long hint=" + hint);
      }
      prevStream = stream;
      prevPartition = partition;
      hints.computeIfAbsent(stream, x -> new TreeMap<>()).put(partition, hint);
    }
  }
}
