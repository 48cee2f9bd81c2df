package dev.loam.meta.state;

import static dev.loam.meta.command.Outcome.rejected;

import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AdvanceGroupGeneration;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitGroupOffsets;
import dev.loam.meta.command.DeleteGroupOffsets;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.InitCluster;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.SetNodeEndpoint;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import java.util.TreeMap;

/**
 * Nodes, liveness and stream ownership (ownership-and-routing.txt): the node registry with its
 * snapshot section, and the rules over it and the {@link OwnershipTable}. Zombie fencing ({@link
 * #checkNode}: every command's proposer must be registered, live, at exactly its epoch), the node
 * commands, placement, open, close and transfer, and the owner checks of owner-bound commands
 * ({@link #checkOwner}, {@link #checkFenced}).
 *
 * <p>Also the cluster id ({@link #initCluster}) with its own snapshot section: it names the cluster
 * these nodes form, is set by one of them, and is one value, so it lives with the node registry
 * rather than in a table of its own.
 */
final class ClusterRules {
  private final Catalog catalog;

  private final TreeMap<String, NodeInfo> nodes = new TreeMap<>();

  /** Node liveness and stream ownership (ownership-and-routing.txt). */
  private final OwnershipTable ownership = new OwnershipTable();

  /** The cluster id; null until the first InitCluster is applied, then never changed. */
  private String clusterId;

  ClusterRules(Catalog catalog) {
    this.catalog = catalog;
  }

  TreeMap<String, NodeInfo> nodes() {
    return nodes;
  }

  OwnershipTable ownership() {
    return ownership;
  }

  // ---- nodes

  Outcome registerNode(RegisterNode c, long clockMillis) {
    Origin o = c.origin();
    if (o.nodeId().isEmpty()) {
      return rejected(RejectReason.INVALID, "node id must not be empty node=");
    }
    if (c.slots() < 1) {
      return rejected(
          RejectReason.INVALID, "slots must be >= 1 node=" + o.nodeId() + " slots=" + c.slots());
    }
    NodeInfo current = nodes.get(o.nodeId());
    if (current != null && o.nodeEpoch() < current.epoch()) {
      return staleEpoch(o, current);
    }
    // Equal epoch: an idempotent re-registration that may update address, slots and zone, and
    // keeps the endpoints (the same process). Higher: replaces the record, without endpoints (a new
    // process may listen elsewhere; its listeners advertise again), and checkNode then refuses
    // every command of the older epoch.
    boolean sameProcess = current != null && o.nodeEpoch() == current.epoch();
    NodeInfo node =
        new NodeInfo(
            o.nodeId(),
            o.nodeEpoch(),
            c.advertisedAddress(),
            c.slots(),
            c.zone(),
            sameProcess ? current.endpoints() : null);
    nodes.put(node.id(), node);
    if (current == null || o.nodeEpoch() > current.epoch()) {
      ownership.registeredAnew(node.id());
    } else if (!ownership.live(node.id())) {
      // The same process again after it was declared dead (a long pause): alive from now on. Its
      // streams were closed when it died; it owns nothing until it opens something again.
      ownership.renewed(node.id(), clockMillis);
    }
    return new Outcome.NodeRegistered(node);
  }

  /** Zombie fencing: the proposer must be registered at exactly its epoch. */
  Outcome.Rejected checkNode(Origin o) {
    NodeInfo n = nodes.get(o.nodeId());
    if (n == null) {
      return rejected(
          RejectReason.UNKNOWN_NODE,
          "node is not registered node=" + o.nodeId() + " epoch=" + o.nodeEpoch());
    }
    if (o.nodeEpoch() < n.epoch()) {
      return staleEpoch(o, n);
    }
    if (o.nodeEpoch() > n.epoch()) {
      return rejected(
          RejectReason.UNKNOWN_NODE,
          "node is not registered at this epoch node="
              + o.nodeId()
              + " epoch="
              + o.nodeEpoch()
              + " registeredEpoch="
              + n.epoch());
    }
    if (!ownership.live(o.nodeId())) {
      return rejected(
          RejectReason.UNKNOWN_NODE,
          "node was declared dead or left; it must register again node="
              + o.nodeId()
              + " epoch="
              + o.nodeEpoch());
    }
    return null;
  }

  private static Outcome.Rejected staleEpoch(Origin o, NodeInfo n) {
    return rejected(
        RejectReason.STALE_NODE_EPOCH,
        "node epoch is fenced by a newer registration node="
            + o.nodeId()
            + " epoch="
            + o.nodeEpoch()
            + " registeredEpoch="
            + n.epoch());
  }

  // ---- the cluster id

  /** The cluster id, or null before the first InitCluster. */
  String clusterId() {
    return clusterId;
  }

  /**
   * Sets the cluster id if none is set. First proposer wins: a later InitCluster, with this id or
   * another, gets the recorded id back (not a refusal), so a retry after an unknown outcome and the
   * loser of a race between two starting nodes both learn the id that won. The proposer was fenced
   * by {@link #checkNode} like every node command. An invalid id is refused INVALID whether or not
   * an id is set: it is a bug in the proposer, which must not be hidden behind the recorded id.
   */
  Outcome initCluster(InitCluster c) {
    String id = c.clusterId();
    if (!InitCluster.isValidClusterId(id)) {
      return rejected(
          RejectReason.INVALID,
          "cluster id must be 1.."
              + InitCluster.MAX_LENGTH
              + " characters of [A-Za-z0-9_-] node="
              + c.origin().nodeId()
              + " length="
              + (id == null ? -1 : id.length())
              + " clusterId="
              + shortened(id));
    }
    if (clusterId == null) {
      clusterId = id;
    }
    return new Outcome.ClusterInitialized(clusterId);
  }

  /** A proposed id for a message: an over-long one is cut, so a refusal stays small. */
  private static String shortened(String id) {
    int max = InitCluster.MAX_LENGTH + 16;
    return id == null || id.length() <= max ? id : id.substring(0, max) + "...";
  }

  // ---- liveness and stream ownership (ownership-and-routing.txt)

  Outcome renewNode(RenewNode c, long clockMillis) {
    ownership.renewed(c.origin().nodeId(), clockMillis);
    return new Outcome.NodeStatusChanged(ownership.status(nodes.get(c.origin().nodeId())), true, 0);
  }

  Outcome expireNode(ExpireNode c, long clockMillis) {
    String where = " node=" + c.nodeId() + " epoch=" + c.nodeEpoch();
    if (c.timeoutMillis() < ExpireNode.MIN_TIMEOUT_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "timeoutMillis must be >= "
              + ExpireNode.MIN_TIMEOUT_MILLIS
              + where
              + " timeoutMillis="
              + c.timeoutMillis());
    }
    NodeInfo n = c.nodeId() == null ? null : nodes.get(c.nodeId());
    if (n == null) {
      return rejected(RejectReason.NOT_FOUND, "no such node" + where);
    }
    if (n.epoch() != c.nodeEpoch()) {
      return rejected(
          RejectReason.CONFLICT,
          "the node is registered at another epoch" + where + " registeredEpoch=" + n.epoch());
    }
    if (!ownership.live(n.id())) {
      return new Outcome.NodeStatusChanged(ownership.status(n), false, 0);
    }
    long renewedAt = ownership.renewedAt(n);
    if (clockMillis - renewedAt < c.timeoutMillis()) {
      return rejected(
          RejectReason.CONFLICT,
          "the node is still live"
              + where
              + " renewedAt="
              + renewedAt
              + " clock="
              + clockMillis
              + " timeoutMillis="
              + c.timeoutMillis());
    }
    ownership.markDead(n.id());
    int closed = ownership.release(n.id());
    return new Outcome.NodeStatusChanged(ownership.status(n), true, closed);
  }

  Outcome deregisterNode(DeregisterNode c) {
    NodeInfo n = nodes.get(c.origin().nodeId());
    ownership.markDead(n.id());
    int closed = ownership.release(n.id());
    return new Outcome.NodeStatusChanged(ownership.status(n), true, closed);
  }

  Outcome setNodeSlots(SetNodeSlots c) {
    NodeInfo n = c.nodeId() == null ? null : nodes.get(c.nodeId());
    if (n == null) {
      return rejected(RejectReason.NOT_FOUND, "no such node node=" + c.nodeId());
    }
    if (c.slots() < 0 || c.slots() > SetNodeSlots.MAX_SLOTS) {
      return rejected(
          RejectReason.INVALID,
          "slots must be 0.." + SetNodeSlots.MAX_SLOTS + " node=" + n.id() + " slots=" + c.slots());
    }
    NodeInfo updated = n.withSlots(c.slots());
    nodes.put(n.id(), updated);
    return new Outcome.NodeRegistered(updated);
  }

  /** Sets or removes one endpoint of the proposer; see {@link NodeEndpoints#set}. */
  Outcome setNodeEndpoint(SetNodeEndpoint c) {
    return NodeEndpoints.set(nodes, c);
  }

  Outcome placeStream(PlaceStream c) {
    if (!catalog.exists(c.streamId())) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    StreamOwnership cur = ownership.get(c.streamId());
    if (cur.owned()) {
      return new Outcome.OwnershipChanged(cur, false);
    }
    String chosen = ownership.choose(nodes.values());
    if (chosen == null) {
      return rejected(
          RejectReason.NOT_FOUND, "no live node with slots to place on streamId=" + c.streamId());
    }
    StreamOwnership next =
        new StreamOwnership(
            c.streamId(),
            StreamOwnership.State.PLACED,
            chosen,
            nodes.get(chosen).epoch(),
            cur.streamEpoch(),
            null);
    ownership.put(next);
    return new Outcome.OwnershipChanged(next, true);
  }

  Outcome openStream(OpenStream c) {
    if (!catalog.exists(c.streamId())) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    Origin o = c.origin();
    StreamOwnership cur = ownership.get(c.streamId());
    if (cur.state() == StreamOwnership.State.OPEN
        && o.nodeId().equals(cur.owner())
        && cur.ownerEpoch() == o.nodeEpoch()
        && cur.transferTarget() == null) {
      return new Outcome.OwnershipChanged(cur, false);
    }
    if (cur.transferTarget() != null && !cur.transferTarget().equals(o.nodeId())) {
      return notOwner(cur, cur.transferTarget(), "a transfer is pending");
    }
    if (cur.transferTarget() == null && cur.owned() && !o.nodeId().equals(cur.owner())) {
      return notOwner(cur, cur.owner(), "the stream is owned by another node");
    }
    // The owner (again, or at a new node epoch), the transfer target, or any node reviving a stream
    // without owner: the stream epoch moves, fencing everything decided under the earlier opening.
    StreamOwnership next =
        new StreamOwnership(
            c.streamId(),
            StreamOwnership.State.OPEN,
            o.nodeId(),
            o.nodeEpoch(),
            cur.streamEpoch() + 1,
            null);
    ownership.put(next);
    return new Outcome.OwnershipChanged(next, true);
  }

  Outcome closeStream(CloseStream c) {
    if (!catalog.exists(c.streamId())) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    StreamOwnership cur = ownership.get(c.streamId());
    if (cur.state() == StreamOwnership.State.CLOSED && cur.streamEpoch() == c.streamEpoch()) {
      return new Outcome.OwnershipChanged(cur, false); // a retry of this close
    }
    Outcome.Rejected refused = checkOpenBy(cur, c.origin(), c.streamEpoch());
    if (refused != null) {
      return refused;
    }
    StreamOwnership next =
        new StreamOwnership(
            c.streamId(), StreamOwnership.State.CLOSED, null, 0, cur.streamEpoch(), null);
    ownership.put(next);
    return new Outcome.OwnershipChanged(next, true);
  }

  Outcome transferStream(TransferStream c) {
    if (!catalog.exists(c.streamId())) {
      return rejected(RejectReason.NOT_FOUND, "no such stream streamId=" + c.streamId());
    }
    StreamOwnership cur = ownership.get(c.streamId());
    Outcome.Rejected refused = checkOpenBy(cur, c.origin(), c.streamEpoch());
    if (refused != null) {
      return refused;
    }
    String target = c.targetNodeId();
    NodeInfo t = target == null ? null : nodes.get(target);
    if (t == null || !ownership.live(target)) {
      return rejected(
          RejectReason.NOT_FOUND,
          "transfer target is not a live node streamId=" + c.streamId() + " target=" + target);
    }
    if (target.equals(cur.owner())) {
      return rejected(
          RejectReason.INVALID,
          "transfer target is the owner streamId=" + c.streamId() + " target=" + target);
    }
    if (target.equals(cur.transferTarget())) {
      return new Outcome.OwnershipChanged(cur, false);
    }
    StreamOwnership next =
        new StreamOwnership(
            cur.streamId(), cur.state(), cur.owner(), cur.ownerEpoch(), cur.streamEpoch(), target);
    ownership.put(next);
    return new Outcome.OwnershipChanged(next, true);
  }

  /**
   * The check of an {@link OwnerFenced} command: its inner command must be owner-bound and about
   * the same stream, and the proposer must hold that stream open at the stream epoch it names. Null
   * when the inner command may be applied.
   */
  Outcome.Rejected checkFenced(OwnerFenced c) {
    if (!OwnerFenced.ownerBound(c.inner())) {
      return rejected(
          RejectReason.INVALID,
          "not an owner-bound command type=" + c.inner().getClass().getSimpleName());
    }
    long about = streamOf(c.inner());
    if (about != c.streamId()) {
      return rejected(
          RejectReason.INVALID,
          "the fenced command is about another stream streamId="
              + c.streamId()
              + " commandStreamId="
              + about);
    }
    Outcome.Rejected refused =
        checkOpenBy(ownership.get(c.streamId()), c.origin(), c.streamEpoch());
    return refused;
  }

  /**
   * The owner-bound check of a command without a stream epoch: refused when the stream has an owner
   * and the proposer does not hold it open at its node epoch. A stream without owner (unplaced or
   * closed) takes it from anyone: there is no other writer, and the next open fences the proposer.
   */
  Outcome.Rejected checkOwner(Command command) {
    long streamId = streamOf(command);
    if (streamId < 0) {
      return null; // no such stream: the command itself answers NOT_FOUND
    }
    StreamOwnership cur = ownership.get(streamId);
    if (!cur.owned()) {
      return null;
    }
    Origin o = command.origin();
    if (cur.state() == StreamOwnership.State.OPEN
        && o.nodeId().equals(cur.owner())
        && cur.ownerEpoch() == o.nodeEpoch()) {
      return null;
    }
    return notOwner(cur, cur.owner(), "owner-bound command from a node that does not hold it open");
  }

  /** The proposer must hold the stream open at its node epoch and at {@code streamEpoch}. */
  private Outcome.Rejected checkOpenBy(StreamOwnership cur, Origin o, long streamEpoch) {
    if (cur.state() != StreamOwnership.State.OPEN
        || !o.nodeId().equals(cur.owner())
        || cur.ownerEpoch() != o.nodeEpoch()) {
      return notOwner(cur, cur.owner(), "the proposer does not hold the stream open");
    }
    if (streamEpoch != cur.streamEpoch()) {
      // NOT_OWNER, not FENCED: the proposer no longer holds the stream at the epoch it acted under
      // (FENCED stays the inner commands' own verdict, e.g. a stale consumer generation).
      return rejected(
          RejectReason.NOT_OWNER,
          "stale stream epoch streamId="
              + cur.streamId()
              + " streamEpoch="
              + streamEpoch
              + " currentStreamEpoch="
              + cur.streamEpoch());
    }
    return null;
  }

  private static Outcome.Rejected notOwner(StreamOwnership cur, String owner, String why) {
    return rejected(
        RejectReason.NOT_OWNER,
        why
            + " streamId="
            + cur.streamId()
            + " owner="
            + owner
            + " state="
            + cur.state()
            + " streamEpoch="
            + cur.streamEpoch());
  }

  /** The id of the stream an owner-bound command is about, or -1 if it names no live stream. */
  private long streamOf(Command c) {
    Catalog.StreamState s = null;
    if (c instanceof SwapSegment x) {
      return catalog.exists(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof TrimPartition x) {
      return catalog.exists(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof AcquireConsumerLease x) {
      return catalog.exists(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof CommitConsumerOffset x) {
      return catalog.exists(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof AdvanceGroupGeneration x) {
      return catalog.exists(x.coordinatorStreamId()) ? x.coordinatorStreamId() : -1;
    } else if (c instanceof CommitGroupOffsets x) {
      return catalog.exists(x.coordinatorStreamId()) ? x.coordinatorStreamId() : -1;
    } else if (c instanceof DeleteGroupOffsets x) {
      return catalog.exists(x.coordinatorStreamId()) ? x.coordinatorStreamId() : -1;
    } else if (c instanceof UpdateStreamConfig x) {
      s = catalog.streamNamed(x.namespace(), x.name());
    } else if (c instanceof AddPartitions x) {
      s = catalog.streamNamed(x.namespace(), x.name());
    } else if (c instanceof DeleteStream x) {
      s = catalog.streamNamed(x.namespace(), x.name());
    }
    return s == null ? -1 : s.info.id();
  }

  // ---- snapshot sections (docs/formats/metastore-snapshot.md); ownership has its own, version 4

  /** Whether some node advertises an endpoint: the snapshot needs version 6 to hold it. */
  boolean hasEndpoints() {
    return NodeEndpoints.any(nodes);
  }

  /** The version 6 section: every node's endpoints; see {@link NodeEndpoints#write}. */
  void writeEndpoints(BinaryWriter w) {
    NodeEndpoints.write(w, nodes);
  }

  /** Reads {@link #writeEndpoints}'s section into the restored registry. */
  void readEndpoints(BinaryReader r, int version) {
    NodeEndpoints.read(r, nodes, version);
  }

  /** Whether the cluster id is set: the snapshot needs version 5 to hold it. */
  boolean hasClusterId() {
    return clusterId != null;
  }

  /**
   * The version 5 section: the cluster id as a {@code str?}. Version 5 is written only when the id
   * is set, so a v5 writer never writes null; the nullable encoding is there so that a later
   * version, written for a section of its own (version 6: endpoints), can hold a state without a
   * cluster id unchanged.
   */
  void writeClusterId(BinaryWriter w) {
    w.nullableString(clusterId);
  }

  /**
   * Reads {@link #writeClusterId}'s section. Null in version 5, or an id the rule would refuse, is
   * corruption: no v5 writer produces either. From version 6 on null is a state without an id.
   */
  void readClusterId(BinaryReader r, int version) {
    String id = r.nullableString("clusterId");
    if (id == null) {
      if (version == 5) {
        throw r.corrupt("clusterId", "a version 5 snapshot must hold a cluster id");
      }
      return;
    }
    if (!InitCluster.isValidClusterId(id)) {
      throw r.corrupt(
          "clusterId",
          "not a valid cluster id length=" + id.length() + " clusterId=" + shortened(id));
    }
    clusterId = id;
  }

  /** The nodes section: every registered node by id. */
  void writeNodes(BinaryWriter w) {
    w.i32(nodes.size());
    for (NodeInfo n : nodes.values()) {
      w.string(n.id())
          .i64(n.epoch())
          .nullableString(n.advertisedAddress())
          .i32(n.slots())
          .nullableString(n.zone());
    }
  }

  void readNodes(BinaryReader r) {
    int nNodes = r.count("nodes.count", 4 + 8 + 4 + 4 + 4);
    for (int i = 0; i < nNodes; i++) {
      NodeInfo n =
          new NodeInfo(
              r.string("node.id"),
              r.i64("node.epoch"),
              r.nullableString("node.advertisedAddress"),
              r.i32("node.slots"),
              r.nullableString("node.zone"));
      if (nodes.put(n.id(), n) != null) {
        throw r.corrupt("node.id", "duplicate node=" + n.id());
      }
    }
  }
}
