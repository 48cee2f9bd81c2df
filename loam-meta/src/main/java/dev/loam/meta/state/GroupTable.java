package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.GroupInfo;
import dev.loam.meta.command.GroupOffset;
import dev.loam.meta.command.GroupPartition;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Kafka consumer groups (docs/design/consumer-groups.md): each group's stored generation and
 * committed offsets, by (namespace, group). Applies the group commands with their generation
 * fencing (the coordinator epoch is checked before, by the {@code OwnerFenced} wrapper), drops
 * offsets of deleted streams and groups of deleted namespaces, and writes and reads its snapshot
 * section (version 8).
 */
final class GroupTable {
  private final Catalog catalog;

  /** Groups by namespace, then group id; sorted so reads and snapshots are ordered. */
  private final TreeMap<String, TreeMap<String, Group>> groups = new TreeMap<>();

  GroupTable(Catalog catalog) {
    this.catalog = catalog;
  }

  /** One group's record. */
  private static final class Group {
    final long coordinatorStreamId;
    int generation;
    final TreeMap<GroupPartition, GroupOffset> offsets = new TreeMap<>();

    Group(long coordinatorStreamId, int generation) {
      this.coordinatorStreamId = coordinatorStreamId;
      this.generation = generation;
    }
  }

  // ---- the rules

  Outcome advanceGeneration(AdvanceGroupGeneration c) {
    Outcome.Rejected bad = checkGroup(c.coordinatorStreamId(), c.namespace(), c.group());
    if (bad != null) {
      return bad;
    }
    String where = groupText(c.namespace(), c.group());
    if (c.generation() < 1) {
      return rejected(
          RejectReason.INVALID,
          "group generation must be at least 1" + where + gen(c.generation()));
    }
    Group g = get(c.namespace(), c.group());
    if (g != null && c.generation() <= g.generation) {
      return rejected(
          RejectReason.FENCED,
          "stale group generation"
              + where
              + gen(c.generation())
              + " currentGeneration="
              + g.generation);
    }
    if (g == null) {
      Outcome.Rejected full = checkRoom(c.namespace(), where);
      if (full != null) {
        return full;
      }
      g = new Group(c.coordinatorStreamId(), c.generation());
      groups.computeIfAbsent(c.namespace(), k -> new TreeMap<>()).put(c.group(), g);
    }
    g.generation = c.generation();
    return changed(c.namespace(), c.group(), g);
  }

  Outcome commitOffsets(CommitGroupOffsets c) {
    Outcome.Rejected bad = checkGroup(c.coordinatorStreamId(), c.namespace(), c.group());
    if (bad != null) {
      return bad;
    }
    String where = groupText(c.namespace(), c.group());
    if (c.generation() < CommitGroupOffsets.NO_GENERATION || c.generation() == 0) {
      return rejected(
          RejectReason.INVALID,
          "commit generation must be -1 or at least 1" + where + gen(c.generation()));
    }
    if (c.offsets().size() > GroupInfo.MAX_OFFSETS) {
      return rejected(
          RejectReason.INVALID,
          "too many offsets in one commit max="
              + GroupInfo.MAX_OFFSETS
              + where
              + " offsets="
              + c.offsets().size());
    }
    Group g = get(c.namespace(), c.group());
    // Fencing before validation: a stale member learns only that it is stale.
    int stored = g == null ? 0 : g.generation;
    if (c.generation() != CommitGroupOffsets.NO_GENERATION && c.generation() != stored) {
      return rejected(
          RejectReason.FENCED,
          "stale group generation" + where + gen(c.generation()) + " currentGeneration=" + stored);
    }
    TreeMap<GroupPartition, GroupOffset> next = new TreeMap<>();
    for (GroupOffset o : c.offsets()) {
      Outcome.Rejected refused = checkOffset(o, c.namespace(), where);
      if (refused != null) {
        return refused;
      }
      next.put(o.key(), o);
    }
    int after = g == null ? next.size() : g.offsets.size();
    if (g != null) {
      for (GroupPartition k : next.keySet()) {
        if (!g.offsets.containsKey(k)) {
          after++;
        }
      }
    }
    if (after > GroupInfo.MAX_OFFSETS) {
      return rejected(
          RejectReason.INVALID,
          "too many committed partitions in the group max=" + GroupInfo.MAX_OFFSETS + where);
    }
    if (g == null) {
      Outcome.Rejected full = checkRoom(c.namespace(), where);
      if (full != null) {
        return full;
      }
      g = new Group(c.coordinatorStreamId(), 0);
      groups.computeIfAbsent(c.namespace(), k -> new TreeMap<>()).put(c.group(), g);
    }
    g.offsets.putAll(next);
    return changed(c.namespace(), c.group(), g);
  }

  Outcome deleteOffsets(DeleteGroupOffsets c) {
    Outcome.Rejected bad = checkGroup(c.coordinatorStreamId(), c.namespace(), c.group());
    if (bad != null) {
      return bad;
    }
    Group g = get(c.namespace(), c.group());
    if (g == null) {
      return new Outcome.GroupChanged(c.namespace(), c.group(), 0, 0);
    }
    if (c.wholeGroup()) {
      TreeMap<String, Group> ns = groups.get(c.namespace());
      ns.remove(c.group());
      if (ns.isEmpty()) {
        groups.remove(c.namespace());
      }
      return new Outcome.GroupChanged(c.namespace(), c.group(), 0, 0);
    }
    for (GroupPartition p : c.partitions()) {
      g.offsets.remove(p);
    }
    return changed(c.namespace(), c.group(), g);
  }

  /** The checks every group command shares; null when they pass. */
  private Outcome.Rejected checkGroup(long coordinatorStreamId, String namespace, String group) {
    if (!Catalog.validName(namespace)) {
      return Catalog.invalidName("namespace", namespace);
    }
    if (group.isEmpty() || group.length() > GroupInfo.MAX_GROUP_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "group id must be 1.."
              + GroupInfo.MAX_GROUP_LENGTH
              + " characters namespace="
              + namespace
              + " groupLength="
              + group.length());
    }
    if (!catalog.namespaces().containsKey(namespace)) {
      // A group lives in its namespace: one that does not exist (or was deleted, which dropped
      // its groups) holds none, so nothing is left behind that no listing shows.
      return rejected(RejectReason.NOT_FOUND, "no such namespace" + groupText(namespace, group));
    }
    Catalog.StreamState s =
        catalog.streamNamed(
            GroupInfo.COORDINATOR_NAMESPACE, GroupInfo.coordinatorStreamName(namespace, group));
    if (s == null || s.info.id() != coordinatorStreamId) {
      return rejected(
          RejectReason.INVALID,
          "not the group's coordinator stream"
              + groupText(namespace, group)
              + " coordinatorStreamId="
              + coordinatorStreamId);
    }
    return null;
  }

  private Outcome.Rejected checkOffset(GroupOffset o, String namespace, String where) {
    String at = where + " streamId=" + o.streamId() + " partition=" + o.partition();
    Catalog.StreamState s = catalog.stream(o.streamId());
    if (s == null
        || !s.info.namespace().equals(namespace)
        || catalog.partitionState(o.streamId(), o.partition()) == null) {
      return rejected(
          RejectReason.NOT_FOUND, "no such stream or partition in the group's namespace" + at);
    }
    if (o.offset() < 0) {
      return rejected(
          RejectReason.INVALID, "committed offset must be >= 0" + at + " offset=" + o.offset());
    }
    if (o.metadata().length() > GroupOffset.MAX_METADATA_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "offset metadata too long max="
              + GroupOffset.MAX_METADATA_LENGTH
              + at
              + " metadataLength="
              + o.metadata().length());
    }
    return null;
  }

  private Outcome.Rejected checkRoom(String namespace, String where) {
    TreeMap<String, Group> ns = groups.get(namespace);
    if (ns != null && ns.size() >= GroupInfo.MAX_GROUPS_PER_NAMESPACE) {
      return rejected(
          RejectReason.INVALID,
          "too many groups in the namespace max=" + GroupInfo.MAX_GROUPS_PER_NAMESPACE + where);
    }
    return null;
  }

  private static Outcome changed(String namespace, String group, Group g) {
    return new Outcome.GroupChanged(namespace, group, g.generation, g.offsets.size());
  }

  private Group get(String namespace, String group) {
    TreeMap<String, Group> ns = groups.get(namespace);
    return ns == null ? null : ns.get(group);
  }

  private static String groupText(String namespace, String group) {
    return " namespace=" + namespace + " group=" + group;
  }

  private static String gen(int generation) {
    return " generation=" + generation;
  }

  /**
   * Drops every group's offsets of a deleted stream, and the groups whose coordinator stream it
   * was: a stream re-created under its name is another stream (new id).
   */
  void dropStream(long streamId) {
    var nsIt = groups.values().iterator();
    while (nsIt.hasNext()) {
      TreeMap<String, Group> ns = nsIt.next();
      ns.values().removeIf(g -> g.coordinatorStreamId == streamId);
      for (Group g : ns.values()) {
        g.offsets.keySet().removeIf(k -> k.streamId() == streamId);
      }
      if (ns.isEmpty()) {
        nsIt.remove();
      }
    }
  }

  /** Drops the groups of a deleted namespace. */
  void dropNamespace(String namespace) {
    groups.remove(namespace);
  }

  // ---- reads

  Optional<GroupInfo> group(String namespace, String group) {
    Group g = get(namespace, group);
    return g == null ? Optional.empty() : Optional.of(info(namespace, group, g));
  }

  List<GroupInfo> groups(String namespace) {
    TreeMap<String, Group> ns = groups.get(namespace);
    List<GroupInfo> out = new ArrayList<>();
    if (ns != null) {
      ns.forEach((name, g) -> out.add(info(namespace, name, g)));
    }
    return out;
  }

  private static GroupInfo info(String namespace, String group, Group g) {
    return new GroupInfo(
        namespace, group, g.coordinatorStreamId, g.generation, List.copyOf(g.offsets.values()));
  }

  /** No group has a record: nothing for a version 8 section to hold. */
  boolean isDefault() {
    return groups.isEmpty();
  }

  int size() {
    return groups.values().stream().mapToInt(Map::size).sum();
  }

  // ---- snapshot section (version 8, docs/formats/metastore-snapshot.md)

  /** Every group by (namespace, group), each with its offsets by (stream, partition). */
  void write(BinaryWriter w) {
    w.i32(size());
    groups.forEach(
        (ns, byName) ->
            byName.forEach(
                (name, g) -> {
                  w.string(ns).string(name).i64(g.coordinatorStreamId).i32(g.generation);
                  w.i32(g.offsets.size());
                  for (GroupOffset o : g.offsets.values()) {
                    CommandCodec.writeGroupOffset(w, o);
                  }
                }));
  }

  /**
   * Reads the section {@link #write} wrote (at least one group in version 8, any number from 9);
   * the catalog must be restored.
   */
  void read(BinaryReader r, int version) {
    int n = r.count("groups.count", 4 + 4 + 8 + 4 + 4);
    if (n == 0 && version == 8) {
      throw r.corrupt("groups.count", "a version 8 snapshot holds at least one group");
    }
    String prevNs = null;
    String prevGroup = null;
    for (int i = 0; i < n; i++) {
      String ns = r.string("group.namespace");
      String name = r.string("group.group");
      long coordinator = r.i64("group.coordinatorStreamId");
      int generation = r.i32("group.generation");
      if (prevNs != null
          && (prevNs.compareTo(ns) > 0 || (prevNs.equals(ns) && prevGroup.compareTo(name) >= 0))) {
        throw r.corrupt("group", "groups not sorted or duplicate group=" + name);
      }
      if (checkGroup(coordinator, ns, name) != null) {
        throw r.corrupt("group.coordinatorStreamId", checkGroup(coordinator, ns, name).message());
      }
      if (generation < 0) {
        throw r.corrupt("group.generation", "negative generation=" + generation);
      }
      Group g = new Group(coordinator, generation);
      int m = r.count("group.offsets.count", CommandCodec.MIN_GROUP_OFFSET_BYTES);
      if (m > GroupInfo.MAX_OFFSETS) {
        throw r.corrupt("group.offsets.count", "too many offsets count=" + m);
      }
      GroupPartition prev = null;
      for (int j = 0; j < m; j++) {
        GroupOffset o = CommandCodec.readGroupOffset(r, "group.offset");
        if (prev != null && prev.compareTo(o.key()) >= 0) {
          throw r.corrupt("group.offset", "offsets not sorted or duplicate group=" + name);
        }
        Outcome.Rejected refused = checkOffset(o, ns, groupText(ns, name));
        if (refused != null) {
          throw r.corrupt("group.offset", refused.message());
        }
        g.offsets.put(o.key(), o);
        prev = o.key();
      }
      groups.computeIfAbsent(ns, k -> new TreeMap<>()).put(name, g);
      prevNs = ns;
      prevGroup = name;
    }
  }
}
