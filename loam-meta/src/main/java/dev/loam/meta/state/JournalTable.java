package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.AssignJournalPartition;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.PlaceJournal;
import dev.loam.wal.DurabilityClass;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Quorum-journal placement (docs/design/quorum.md "Placement"): which nodes replicate each journal,
 * and which journal holds each partition of a quorum stream. Both are chosen by apply from the
 * replicated state alone, so every replica computes the same placement; a second proposal of the
 * same placement is a no-op. Reads and writes its own snapshot section (version 13 on), and with
 * {@link JournalHints} and {@link JournalMoves} the sections of version 14.
 */
final class JournalTable {
  static final int MAX_REPLICAS = 9;
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._-]{1,100}");

  /** The most journals a family of {@link AssignJournalPartition.Spread} grows to. */
  static final int MAX_FAMILY = 32;

  private final Catalog catalog;

  /** Journal name → replica node ids in placement order. */
  private final TreeMap<String, List<String>> journals = new TreeMap<>();

  /** (stream, partition) → journal name, sorted for byte-identical snapshots. */
  private final TreeMap<Long, TreeMap<Integer, String>> assignments = new TreeMap<>();

  /** The partitions' placement hints (version 14 on). */
  final JournalHints hints = new JournalHints(this);

  /** The moves between journals under way (version 14 on). */
  final JournalMoves moves;

  /** Journal name → partitions assigned to it. */
  private final TreeMap<String, Integer> partitionCounts = new TreeMap<>();

  JournalTable(Catalog catalog) {
    this.catalog = catalog;
    this.moves = new JournalMoves(catalog, this);
  }

  boolean isDefault() {
    return journals.isEmpty();
  }

  /** Whether some partition carries a placement hint or is moving (snapshot version 14 on). */
  boolean hasHints() {
    return hints.any() || moves.any();
  }

  /** The version 14 sections: the hints, then the moves under way. */
  void writeHints(BinaryWriter w) {
    hints.write(w);
    moves.write(w);
  }

  void readHints(BinaryReader r) {
    hints.read(r);
    moves.read(r);
  }

  /** Puts an assigned partition on another placed journal (a move's completion). */
  void reassign(long streamId, int partition, String to) {
    String from = assignments.get(streamId).put(partition, to);
    partitionCounts.merge(from, -1, Integer::sum);
    partitionCounts.merge(to, 1, Integer::sum);
  }

  Outcome place(PlaceJournal c, Map<String, NodeInfo> nodes, OwnershipTable ownership) {
    if (c.journal() == null || !NAME.matcher(c.journal()).matches()) {
      return rejected(
          RejectReason.INVALID, "journal name must match " + NAME + " journal=" + c.journal());
    }
    List<String> existing = journals.get(c.journal());
    if (existing != null) {
      return new Outcome.JournalPlaced(c.journal(), existing, true);
    }
    if (c.requiredEndpoint() != null && c.requiredEndpoint().isEmpty()) {
      return rejected(
          RejectReason.INVALID, "a required endpoint needs a name journal=" + c.journal());
    }
    if (c.replicas() < 1 || c.replicas() > MAX_REPLICAS) {
      return rejected(
          RejectReason.INVALID,
          "a journal has 1.."
              + MAX_REPLICAS
              + " replicas journal="
              + c.journal()
              + " replicas="
              + c.replicas());
    }
    List<NodeInfo> candidates = candidates(nodes, ownership, c.requiredEndpoint());
    if (candidates.size() < c.replicas()) {
      return rejected(
          RejectReason.INVALID,
          "not enough live nodes for the journal journal="
              + c.journal()
              + " replicas="
              + c.replicas()
              + (c.requiredEndpoint() == null
                  ? " liveNodes="
                  : " liveNodesWithEndpoint=" + c.requiredEndpoint() + " count=")
              + candidates.size());
    }
    // Each next replica in a zone not used yet, while one is left; then the least loaded.
    List<String> chosen = new ArrayList<>();
    Set<String> zones = new HashSet<>();
    while (chosen.size() < c.replicas()) {
      NodeInfo pick = null;
      for (NodeInfo n : candidates) {
        if (!chosen.contains(n.id()) && !zones.contains(n.zone())) {
          pick = n;
          break;
        }
      }
      if (pick == null) {
        for (NodeInfo n : candidates) {
          if (!chosen.contains(n.id())) {
            pick = n;
            break;
          }
        }
      }
      chosen.add(pick.id());
      zones.add(pick.zone());
    }
    journals.put(c.journal(), List.copyOf(chosen));
    partitionCounts.put(c.journal(), 0);
    return new Outcome.JournalPlaced(c.journal(), chosen, false);
  }

  /**
   * Live nodes with slots (advertising {@code endpoint} when not null), the fewest journals per
   * slot first, ties by id.
   */
  private List<NodeInfo> candidates(
      Map<String, NodeInfo> nodes, OwnershipTable ownership, String endpoint) {
    TreeMap<String, Integer> hosted = new TreeMap<>();
    for (List<String> rs : journals.values()) {
      for (String id : rs) {
        hosted.merge(id, 1, Integer::sum);
      }
    }
    List<NodeInfo> candidates = new ArrayList<>();
    for (NodeInfo n : nodes.values()) {
      if (n.slots() >= 1
          && ownership.live(n.id())
          && (endpoint == null || n.endpoints().containsKey(endpoint))) {
        candidates.add(n);
      }
    }
    candidates.sort(
        (a, b) -> {
          int c1 =
              Long.compare(
                  (long) hosted.getOrDefault(a.id(), 0) * b.slots(),
                  (long) hosted.getOrDefault(b.id(), 0) * a.slots());
          return c1 != 0 ? c1 : a.id().compareTo(b.id());
        });
    return candidates;
  }

  Outcome assign(AssignJournalPartition c, Map<String, NodeInfo> nodes, OwnershipTable ownership) {
    Catalog.StreamState s = catalog.stream(c.streamId());
    String ids = " stream=" + c.streamId() + " partition=" + c.partition();
    if (s == null || c.partition() < 0 || c.partition() >= s.partitions.length) {
      return rejected(RejectReason.NOT_FOUND, "no such stream partition" + ids);
    }
    if (s.info.config().durabilityClass() != DurabilityClass.QUORUM) {
      return rejected(RejectReason.INVALID, "only quorum streams are placed on journals" + ids);
    }
    String existing = journalOf(c.streamId(), c.partition()).orElse(null);
    if (existing != null) {
      return new Outcome.JournalPlaced(existing, journals.get(existing), true);
    }
    if (c.spread() != null) {
      Outcome refused = growFamily(c, nodes, ownership, ids);
      if (refused != null) {
        return refused;
      }
    }
    String hint = c.spread() == null ? null : c.spread().placementHint();
    String best = null;
    int bestTier = Integer.MAX_VALUE;
    for (Map.Entry<String, Integer> e : partitionCounts.entrySet()) {
      if (c.spread() != null && !inFamily(e.getKey(), c.spread().namePrefix())) {
        continue;
      }
      int tier = hint == null ? 0 : hints.tier(e.getKey(), hint, nodes);
      if (best == null
          || tier < bestTier
          || (tier == bestTier && e.getValue() < partitionCounts.get(best))) {
        best = e.getKey(); // names iterate in order, so a tie keeps the smaller name
        bestTier = tier;
      }
    }
    if (best == null) {
      return rejected(RejectReason.NOT_FOUND, "no journal is placed" + ids);
    }
    assignments.computeIfAbsent(c.streamId(), k -> new TreeMap<>()).put(c.partition(), best);
    if (hint != null) {
      hints.put(c.streamId(), c.partition(), hint);
    }
    partitionCounts.merge(best, 1, Integer::sum);
    return new Outcome.JournalPlaced(best, journals.get(best), false);
  }

  /**
   * Places the spread's missing journals: the family holds {@code ceil(slots / replicas)} journals
   * (the slots of the live nodes that may replicate one), at most {@link #MAX_FAMILY}; each new one
   * takes the lowest free number. A family never shrinks: a node that dies keeps its journals,
   * which Raft keeps serving from the other replicas. Null when the assignment may go on; else the
   * rejection (a malformed spread, or no journal of the family and too few nodes to place one).
   */
  private Outcome growFamily(
      AssignJournalPartition c, Map<String, NodeInfo> nodes, OwnershipTable ownership, String ids) {
    AssignJournalPartition.Spread sp = c.spread();
    if (sp.namePrefix() == null || !PREFIX.matcher(sp.namePrefix()).matches()) {
      return rejected(
          RejectReason.INVALID,
          "a journal family's prefix must match " + PREFIX + " prefix=" + sp.namePrefix() + ids);
    }
    if (sp.requiredEndpoint() == null || sp.requiredEndpoint().isEmpty()) {
      return rejected(RejectReason.INVALID, "a journal family needs an endpoint name" + ids);
    }
    if (sp.replicas() < 1 || sp.replicas() > MAX_REPLICAS) {
      return rejected(
          RejectReason.INVALID,
          "a journal has 1.." + MAX_REPLICAS + " replicas replicas=" + sp.replicas() + ids);
    }
    if (sp.placementHint() != null
        && (sp.placementHint().isBlank() || sp.placementHint().length() > JournalHints.MAX_HINT)) {
      return rejected(
          RejectReason.INVALID,
          "a placement hint names a zone or a node in 1.."
              + JournalHints.MAX_HINT
              + " characters hint="
              + sp.placementHint()
              + ids);
    }
    List<NodeInfo> candidates = candidates(nodes, ownership, sp.requiredEndpoint());
    long slots = 0;
    for (NodeInfo n : candidates) {
      slots += n.slots();
    }
    long target =
        candidates.size() < sp.replicas()
            ? 0
            : Math.min(MAX_FAMILY, (slots + sp.replicas() - 1) / sp.replicas());
    int members = 0;
    for (String name : journals.keySet()) {
      if (inFamily(name, sp.namePrefix())) {
        members++;
      }
    }
    int next = 1;
    while (members < target) {
      while (journals.containsKey(sp.namePrefix() + next)) {
        next++;
      }
      Outcome o =
          place(
              new PlaceJournal(
                  c.origin(), sp.namePrefix() + next, sp.replicas(), sp.requiredEndpoint()),
              nodes,
              ownership);
      if (o instanceof Outcome.Rejected) {
        return o;
      }
      members++;
    }
    if (members == 0) {
      return rejected(
          RejectReason.INVALID,
          "not enough live nodes for a journal replicas="
              + sp.replicas()
              + " liveNodesWithEndpoint="
              + sp.requiredEndpoint()
              + " count="
              + candidates.size()
              + ids);
    }
    return null;
  }

  /** Whether {@code name} is {@code prefix} followed by a number from 1 on. */
  private static boolean inFamily(String name, String prefix) {
    if (!name.startsWith(prefix) || name.length() == prefix.length()) {
      return false;
    }
    String n = name.substring(prefix.length());
    return n.charAt(0) != '0'
        && n.length() <= 9
        && n.chars().allMatch(ch -> ch >= '0' && ch <= '9');
  }

  /** Forgets a deleted stream's assignments. */
  void dropStream(long streamId) {
    hints.dropStream(streamId);
    moves.dropStream(streamId);
    TreeMap<Integer, String> gone = assignments.remove(streamId);
    if (gone != null) {
      for (String j : gone.values()) {
        partitionCounts.merge(j, -1, Integer::sum);
      }
    }
  }

  Optional<String> journalOf(long streamId, int partition) {
    TreeMap<Integer, String> m = assignments.get(streamId);
    return Optional.ofNullable(m == null ? null : m.get(partition));
  }

  java.util.SortedMap<String, List<String>> journals() {
    return java.util.Collections.unmodifiableSortedMap(new TreeMap<>(journals));
  }

  List<dev.loam.meta.command.JournalPartition> partitionsOf(String journal) {
    List<dev.loam.meta.command.JournalPartition> out = new ArrayList<>();
    for (Map.Entry<Long, TreeMap<Integer, String>> e : assignments.entrySet()) {
      for (Map.Entry<Integer, String> p : e.getValue().entrySet()) {
        if (p.getValue().equals(journal)) {
          out.add(new dev.loam.meta.command.JournalPartition(e.getKey(), p.getKey()));
        }
      }
    }
    return out;
  }

  Optional<List<String>> replicas(String journal) {
    return Optional.ofNullable(journals.get(journal));
  }

  /**
   * The section: journal count i32, each name string, replica count u8, ids string; then assignment
   * count i32, each stream i64, partition i32, journal string (sorted).
   */
  void write(BinaryWriter w) {
    w.i32(journals.size());
    for (Map.Entry<String, List<String>> e : journals.entrySet()) {
      w.string(e.getKey()).u8(e.getValue().size());
      for (String id : e.getValue()) {
        w.string(id);
      }
    }
    int n = 0;
    for (TreeMap<Integer, String> m : assignments.values()) {
      n += m.size();
    }
    w.i32(n);
    for (Map.Entry<Long, TreeMap<Integer, String>> e : assignments.entrySet()) {
      for (Map.Entry<Integer, String> p : e.getValue().entrySet()) {
        w.i64(e.getKey()).i32(p.getKey()).string(p.getValue());
      }
    }
  }

  void read(BinaryReader r) {
    int n = r.count("journals.count", 6);
    if (n == 0) {
      throw r.corrupt("journals.count", "a version 13 snapshot holds at least one journal");
    }
    String previous = null;
    for (int i = 0; i < n; i++) {
      String name = r.string("journal.name");
      if (!NAME.matcher(name).matches() || (previous != null && previous.compareTo(name) >= 0)) {
        throw r.corrupt("journal.name", "malformed, unsorted or duplicate journal=" + name);
      }
      previous = name;
      int k = r.u8("journal.replicas.count");
      if (k < 1 || k > MAX_REPLICAS) {
        throw r.corrupt("journal.replicas.count", "not 1.." + MAX_REPLICAS + " count=" + k);
      }
      List<String> ids = new ArrayList<>(k);
      for (int j = 0; j < k; j++) {
        String id = r.string("journal.replica");
        if (ids.contains(id)) {
          throw r.corrupt("journal.replica", "duplicate replica journal=" + name + " node=" + id);
        }
        ids.add(id);
      }
      journals.put(name, List.copyOf(ids));
      partitionCounts.put(name, 0);
    }
    int a = r.count("journalAssignments.count", 14);
    long prevStream = -1;
    int prevPartition = -1;
    for (int i = 0; i < a; i++) {
      long stream = r.i64("journalAssignment.streamId");
      int partition = r.i32("journalAssignment.partition");
      String journal = r.string("journalAssignment.journal");
      if (stream < prevStream || (stream == prevStream && partition <= prevPartition)) {
        throw r.corrupt(
            "journalAssignment",
            "unsorted or duplicate stream=" + stream + " partition=" + partition);
      }
      Catalog.StreamState s = catalog.stream(stream);
      if (s == null || partition < 0 || partition >= s.partitions.length) {
        throw r.corrupt(
            "journalAssignment",
            "no such stream partition stream=" + stream + " partition=" + partition);
      }
      if (!journals.containsKey(journal)) {
        throw r.corrupt("journalAssignment.journal", "no such journal journal=" + journal);
      }
      prevStream = stream;
      prevPartition = partition;
      assignments.computeIfAbsent(stream, x -> new TreeMap<>()).put(partition, journal);
      partitionCounts.merge(journal, 1, Integer::sum);
    }
  }
}
