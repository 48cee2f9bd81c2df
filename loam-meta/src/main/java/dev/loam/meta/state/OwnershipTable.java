package dev.loam.meta.state;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.StreamOwnership;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The ownership part of the metastore state (ownership-and-routing.txt): node liveness (renewals,
 * dead nodes) and each stream's owner, epoch and pending transfer, with the placement function.
 * Owned by {@link ClusterRules}, which applies the rules; this class keeps the maps consistent
 * (assigned counts derived from owners) and writes and reads its snapshot section.
 *
 * <p>Defaults are not stored: a stream never placed or opened is {@link
 * StreamOwnership#unplaced(long)}, a node that never renewed counts as renewed at its epoch (its
 * start time). So a state without ownership activity snapshots exactly as before version 4.
 */
final class OwnershipTable {
  /** Streams with a non-default ownership, by id (sorted: snapshots and scans are ordered). */
  private final TreeMap<Long, StreamOwnership> owners = new TreeMap<>();

  /** Node id -> metastore clock at its last renewal. */
  private final TreeMap<String, Long> renewals = new TreeMap<>();

  /** Nodes declared dead or gone: every command of theirs is refused until they register. */
  private final TreeSet<String> dead = new TreeSet<>();

  /** Node id -> streams placed on or opened by it; derived from {@link #owners}. */
  private final HashMap<String, Integer> assigned = new HashMap<>();

  StreamOwnership get(long streamId) {
    StreamOwnership o = owners.get(streamId);
    return o != null ? o : StreamOwnership.unplaced(streamId);
  }

  void put(StreamOwnership next) {
    StreamOwnership prev = owners.remove(next.streamId());
    if (prev != null && prev.owned()) {
      assigned.merge(prev.owner(), -1, (a, b) -> a + b == 0 ? null : a + b);
    }
    if (next.state() != StreamOwnership.State.UNPLACED || next.streamEpoch() != 0) {
      owners.put(next.streamId(), next);
      if (next.owned()) {
        assigned.merge(next.owner(), 1, Integer::sum);
      }
    }
  }

  /** Forgets a deleted stream. */
  void remove(long streamId) {
    put(StreamOwnership.unplaced(streamId));
  }

  int assigned(String nodeId) {
    return assigned.getOrDefault(nodeId, 0);
  }

  boolean live(String nodeId) {
    return !dead.contains(nodeId);
  }

  void markDead(String nodeId) {
    dead.add(nodeId);
  }

  /** A registration at a newer epoch: alive, renewed at its epoch (its start time). */
  void registeredAnew(String nodeId) {
    dead.remove(nodeId);
    renewals.remove(nodeId);
  }

  /** A node renews, or registers again at the same epoch: alive, renewed now. */
  void renewed(String nodeId, long clockMillis) {
    dead.remove(nodeId);
    renewals.put(nodeId, clockMillis);
  }

  long renewedAt(NodeInfo n) {
    Long r = renewals.get(n.id());
    return r == null ? n.epoch() : Math.max(n.epoch(), r);
  }

  NodeStatus status(NodeInfo n) {
    return new NodeStatus(n.id(), n.epoch(), live(n.id()), renewedAt(n));
  }

  /**
   * The placement function: the live node with slots whose assigned/slots ratio is lowest, ties to
   * the smallest id; null if none. Ratios compare by cross-multiplication, exact in longs.
   */
  String choose(Collection<NodeInfo> nodes) {
    NodeInfo best = null;
    for (NodeInfo n : nodes) {
      if (n.slots() < 1 || !live(n.id())) {
        continue;
      }
      if (best == null
          || (long) assigned(n.id()) * best.slots() < (long) assigned(best.id()) * n.slots()) {
        best = n; // nodes iterate in id order, so an equal ratio keeps the smaller id
      }
    }
    return best == null ? null : best.id();
  }

  /** The streams {@code nodeId} owns or is the transfer target of, in id order. */
  List<StreamOwnership> involving(String nodeId) {
    List<StreamOwnership> out = new ArrayList<>();
    for (StreamOwnership o : owners.values()) {
      if (nodeId.equals(o.owner()) || nodeId.equals(o.transferTarget())) {
        out.add(o);
      }
    }
    return out;
  }

  /**
   * A dead or departed node's streams are closed and transfers to it cancelled; returns how many
   * streams were closed.
   */
  int release(String nodeId) {
    int closed = 0;
    for (StreamOwnership o : involving(nodeId)) {
      if (nodeId.equals(o.owner())) {
        put(
            new StreamOwnership(
                o.streamId(), StreamOwnership.State.CLOSED, null, 0, o.streamEpoch(), null));
        closed++;
      } else {
        put(
            new StreamOwnership(
                o.streamId(), o.state(), o.owner(), o.ownerEpoch(), o.streamEpoch(), null));
      }
    }
    return closed;
  }

  /** True when nothing differs from the defaults: the snapshot needs no version-4 section. */
  boolean isDefault() {
    return owners.isEmpty() && renewals.isEmpty() && dead.isEmpty();
  }

  // ---- snapshot section (version 4; docs/formats/metastore-snapshot.md)

  void write(BinaryWriter w) {
    w.i32(renewals.size());
    for (Map.Entry<String, Long> e : renewals.entrySet()) {
      w.string(e.getKey()).i64(e.getValue());
    }
    w.i32(dead.size());
    for (String id : dead) {
      w.string(id);
    }
    w.i32(owners.size());
    for (StreamOwnership o : owners.values()) {
      OutcomeCodec.writeOwnership(w, o);
    }
  }

  /**
   * Reads the section; {@code nodes} and {@code streamIds} are the restored registry and streams,
   * against which every reference is checked.
   */
  void read(BinaryReader r, Map<String, NodeInfo> nodes, Collection<Long> streamIds) {
    int nRenewals = r.count("renewals.count", 4 + 8);
    String prev = null;
    for (int i = 0; i < nRenewals; i++) {
      String id = r.string("renewal.nodeId");
      long at = r.i64("renewal.renewedAtMillis");
      if (!nodes.containsKey(id) || (prev != null && prev.compareTo(id) >= 0)) {
        throw r.corrupt("renewal.nodeId", "unknown, unsorted or duplicate node=" + id);
      }
      renewals.put(id, at);
      prev = id;
    }
    int nDead = r.count("dead.count", 4);
    prev = null;
    for (int i = 0; i < nDead; i++) {
      String id = r.string("dead.nodeId");
      if (!nodes.containsKey(id) || (prev != null && prev.compareTo(id) >= 0)) {
        throw r.corrupt("dead.nodeId", "unknown, unsorted or duplicate node=" + id);
      }
      dead.add(id);
      prev = id;
    }
    int nOwners = r.count("owners.count", 8 + 1 + 4 + 8 + 8 + 4);
    long prevStream = 0;
    for (int i = 0; i < nOwners; i++) {
      StreamOwnership o = OutcomeCodec.readOwnership(r, "ownership");
      if (o.streamId() <= prevStream || !streamIds.contains(o.streamId())) {
        throw r.corrupt(
            "ownership.streamId", "unknown, unsorted or duplicate streamId=" + o.streamId());
      }
      if ((o.owner() != null && !nodes.containsKey(o.owner()))
          || (o.transferTarget() != null && !nodes.containsKey(o.transferTarget()))) {
        throw r.corrupt(
            "ownership.owner", "owner or transfer target not registered streamId=" + o.streamId());
      }
      put(o);
      prevStream = o.streamId();
    }
  }
}
