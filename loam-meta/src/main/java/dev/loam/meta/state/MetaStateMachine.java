package dev.loam.meta.state;

import dev.loam.error.CorruptionException;
import dev.loam.meta.MetaReader;
import dev.loam.meta.MetaSettings;
import dev.loam.meta.codec.BinaryReader;
import dev.loam.meta.codec.BinaryWriter;
import dev.loam.meta.codec.CommandCodec;
import dev.loam.meta.codec.OutcomeCodec;
import dev.loam.meta.command.AcquireConsumerLease;
import dev.loam.meta.command.AddPartitions;
import dev.loam.meta.command.AllocateProducerIds;
import dev.loam.meta.command.CloseStream;
import dev.loam.meta.command.Command;
import dev.loam.meta.command.CommitConsumerOffset;
import dev.loam.meta.command.CommitWal;
import dev.loam.meta.command.CommitWal.BatchCommit;
import dev.loam.meta.command.CommitWal.ChunkCommit;
import dev.loam.meta.command.ConsumerLease;
import dev.loam.meta.command.CreateNamespace;
import dev.loam.meta.command.CreateStream;
import dev.loam.meta.command.DeleteNamespace;
import dev.loam.meta.command.DeleteObjects;
import dev.loam.meta.command.DeleteStream;
import dev.loam.meta.command.DeregisterNode;
import dev.loam.meta.command.ExpireNode;
import dev.loam.meta.command.IndexEntry;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.OpenStream;
import dev.loam.meta.command.Origin;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.OwnerFenced;
import dev.loam.meta.command.PartitionInfo;
import dev.loam.meta.command.PlaceStream;
import dev.loam.meta.command.RegisterNode;
import dev.loam.meta.command.RenewNode;
import dev.loam.meta.command.RetiredObject;
import dev.loam.meta.command.SetNodeSlots;
import dev.loam.meta.command.StreamConfig;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import dev.loam.meta.command.SwapSegment;
import dev.loam.meta.command.TransferStream;
import dev.loam.meta.command.TrimPartition;
import dev.loam.meta.command.UpdateStreamConfig;
import dev.loam.meta.state.PartitionState.ProducerState;
import dev.loam.meta.state.PartitionState.SeqEntry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.zip.CRC32C;

/**
 * The metastore's deterministic state machine: nodes, namespaces, streams and, per partition, the
 * sequencer of stream-engine.txt §3 (offsets, producer idempotence, offset index, commit dedupe).
 * Every replica applies the same commands in the same order and reaches the same state and the same
 * snapshot bytes.
 *
 * <p>Pure: no I/O, no clock, no randomness. Time is the metastore clock, the highest command stamp
 * applied so far. Rejections are {@link Outcome.Rejected} values, never exceptions. Not
 * thread-safe: the caller serialises {@link #apply} against readers.
 */
public final class MetaStateMachine {
  /** The namespace that exists from the initial state and cannot be deleted. */
  public static final String DEFAULT_NAMESPACE = "default";

  /** Snapshot magic, ASCII {@code LMSS}. */
  static final int SNAPSHOT_MAGIC = 0x4C4D5353;

  /**
   * The newest snapshot version written. Each state is written in the oldest version that can hold
   * it, so older states stay byte-identical to what older writers produced: version 1 without
   * retired objects, producer ids or named consumers; version 2 with retired objects only; version
   * 3 (retired objects, the producer-id counter and named consumers) when there is no ownership
   * activity; version 4 (version 3 plus node liveness and stream ownership) otherwise. Restore
   * reads all four (metastore-snapshot.md).
   */
  public static final int SNAPSHOT_VERSION = 4;

  /**
   * Named consumers per partition at most (STYLE.md §9): bounds the state one partition can hold
   * and the snapshot it adds.
   */
  public static final int MAX_CONSUMERS_PER_PARTITION = 1024;

  private static final String SNAPSHOT_FORMAT = "metastore snapshot";

  /** Smallest valid Kafka RecordBatch v2: its header without records (record-batch-v2.md). */
  static final int MIN_BATCH_BYTES = 61;

  /** Max name length, Kafka's topic name limit. */
  static final int MAX_NAME_LENGTH = 249;

  /**
   * Dedupe records pruned per apply at most: a bound on the work of one apply (STYLE.md §9). Each
   * apply adds at most one record, so any bound >= 2 keeps up; lookups treat an expired record as
   * absent anyway, so a late prune never changes an outcome.
   */
  static final int MAX_PRUNE_PER_APPLY = 16;

  private final MetaSettings settings;
  private final long staleCommitMillis;
  private final long dedupeRetentionMillis;

  private long appliedIndex;
  private long clockMillis;
  private long nextStreamId = 1;

  /** The next producer id handed out (§7 idempotent producers); only grows. */
  private long nextProducerId;

  /** Named consumers' leases and committed offsets (§7), by (stream id, partition, consumer). */
  private final TreeMap<ConsumerKey, ConsumerLease> consumers = new TreeMap<>();

  private final TreeMap<String, NodeInfo> nodes = new TreeMap<>();

  /** Namespace -> (stream name -> stream); sorted so reads and snapshots are ordered. */
  private final TreeMap<String, TreeMap<String, StreamState>> namespaces = new TreeMap<>();

  private final TreeMap<Long, StreamState> streamsById = new TreeMap<>();

  private final HashMap<String, DedupeRecord> dedupeByKey = new HashMap<>();

  /** The same records, oldest object time first, for bounded pruning. */
  private final TreeSet<DedupeRecord> dedupeByTime =
      new TreeSet<>(
          Comparator.comparingLong(DedupeRecord::objectTimeMillis)
              .thenComparing(DedupeRecord::objectKey));

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

  /** Node liveness and stream ownership (ownership-and-routing.txt). */
  private final OwnershipTable ownership = new OwnershipTable();

  private final View view = new View();

  /** An empty state holding only the default namespace, at applied index 0. */
  public MetaStateMachine(MetaSettings settings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.staleCommitMillis = settings.staleCommitAfter().toMillis();
    this.dedupeRetentionMillis = settings.dedupeRetention().toMillis();
    namespaces.put(DEFAULT_NAMESPACE, new TreeMap<>());
  }

  /** The index of the last applied command; 0 before the first. */
  public long appliedIndex() {
    return appliedIndex;
  }

  /** The settings this state machine applies with. */
  public MetaSettings settings() {
    return settings;
  }

  /** A live read-only view of this state. Not thread-safe: callers hold the lock apply takes. */
  public MetaReader reader() {
    return view;
  }

  /**
   * Applies one command at {@code index}, which must be greater than {@link #appliedIndex()} (a
   * lower one is a caller bug, an {@link IllegalArgumentException}). Returns the outcome.
   */
  public Outcome apply(long index, Command command) {
    Objects.requireNonNull(command, "command");
    if (index <= appliedIndex) {
      throw new IllegalArgumentException(
          "apply index must increase index=" + index + " appliedIndex=" + appliedIndex);
    }
    appliedIndex = index;
    // The metastore clock moves first, on every command, so that the rules below see the same
    // time on every replica (§3 commit window; no wall clock in apply).
    clockMillis = Math.max(clockMillis, command.origin().stampMillis());
    pruneDedupe();
    if (command instanceof RegisterNode c) {
      return registerNode(c);
    }
    Outcome.Rejected fenced = checkNode(command.origin());
    if (fenced != null) {
      return fenced;
    }
    if (command instanceof OwnerFenced c) {
      return ownerFenced(c);
    }
    if (OwnerFenced.ownerBound(command)) {
      Outcome.Rejected notOwner = checkOwner(command);
      if (notOwner != null) {
        return notOwner;
      }
    }
    return dispatch(command);
  }

  private Outcome dispatch(Command command) {
    if (command instanceof CreateNamespace c) {
      return createNamespace(c);
    } else if (command instanceof DeleteNamespace c) {
      return deleteNamespace(c);
    } else if (command instanceof CreateStream c) {
      return createStream(c);
    } else if (command instanceof DeleteStream c) {
      return deleteStream(c);
    } else if (command instanceof CommitWal c) {
      return commitWal(c);
    } else if (command instanceof SwapSegment c) {
      return swapSegment(c);
    } else if (command instanceof TrimPartition c) {
      return trimPartition(c);
    } else if (command instanceof DeleteObjects c) {
      return deleteObjects(c);
    } else if (command instanceof AllocateProducerIds c) {
      return allocateProducerIds(c);
    } else if (command instanceof AcquireConsumerLease c) {
      return acquireConsumerLease(c);
    } else if (command instanceof CommitConsumerOffset c) {
      return commitConsumerOffset(c);
    } else if (command instanceof UpdateStreamConfig c) {
      return updateStreamConfig(c);
    } else if (command instanceof AddPartitions c) {
      return addPartitions(c);
    } else if (command instanceof RenewNode c) {
      return renewNode(c);
    } else if (command instanceof ExpireNode c) {
      return expireNode(c);
    } else if (command instanceof DeregisterNode c) {
      return deregisterNode(c);
    } else if (command instanceof SetNodeSlots c) {
      return setNodeSlots(c);
    } else if (command instanceof PlaceStream c) {
      return placeStream(c);
    } else if (command instanceof OpenStream c) {
      return openStream(c);
    } else if (command instanceof CloseStream c) {
      return closeStream(c);
    } else if (command instanceof TransferStream c) {
      return transferStream(c);
    }
    throw new IllegalArgumentException("unknown command type " + command.getClass());
  }

  // ---- nodes

  private Outcome registerNode(RegisterNode c) {
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
    // Equal epoch: an idempotent re-registration that may update address, slots and zone. Higher:
    // replaces the record, and checkNode then refuses every command of the older epoch.
    NodeInfo node =
        new NodeInfo(o.nodeId(), o.nodeEpoch(), c.advertisedAddress(), c.slots(), c.zone());
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
  private Outcome.Rejected checkNode(Origin o) {
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

  // ---- liveness and stream ownership (ownership-and-routing.txt)

  private Outcome renewNode(RenewNode c) {
    ownership.renewed(c.origin().nodeId(), clockMillis);
    return new Outcome.NodeStatusChanged(ownership.status(nodes.get(c.origin().nodeId())), true, 0);
  }

  private Outcome expireNode(ExpireNode c) {
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

  private Outcome deregisterNode(DeregisterNode c) {
    NodeInfo n = nodes.get(c.origin().nodeId());
    ownership.markDead(n.id());
    int closed = ownership.release(n.id());
    return new Outcome.NodeStatusChanged(ownership.status(n), true, closed);
  }

  private Outcome setNodeSlots(SetNodeSlots c) {
    NodeInfo n = c.nodeId() == null ? null : nodes.get(c.nodeId());
    if (n == null) {
      return rejected(RejectReason.NOT_FOUND, "no such node node=" + c.nodeId());
    }
    if (c.slots() < 0 || c.slots() > SetNodeSlots.MAX_SLOTS) {
      return rejected(
          RejectReason.INVALID,
          "slots must be 0.." + SetNodeSlots.MAX_SLOTS + " node=" + n.id() + " slots=" + c.slots());
    }
    NodeInfo updated = new NodeInfo(n.id(), n.epoch(), n.advertisedAddress(), c.slots(), n.zone());
    nodes.put(n.id(), updated);
    return new Outcome.NodeRegistered(updated);
  }

  private Outcome placeStream(PlaceStream c) {
    if (!streamsById.containsKey(c.streamId())) {
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

  private Outcome openStream(OpenStream c) {
    if (!streamsById.containsKey(c.streamId())) {
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

  private Outcome closeStream(CloseStream c) {
    if (!streamsById.containsKey(c.streamId())) {
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

  private Outcome transferStream(TransferStream c) {
    if (!streamsById.containsKey(c.streamId())) {
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

  private Outcome ownerFenced(OwnerFenced c) {
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
    if (refused != null) {
      return refused;
    }
    return dispatch(c.inner());
  }

  /**
   * The owner-bound check of a command without a stream epoch: refused when the stream has an owner
   * and the proposer does not hold it open at its node epoch. A stream without owner (unplaced or
   * closed) takes it from anyone: there is no other writer, and the next open fences the proposer.
   */
  private Outcome.Rejected checkOwner(Command command) {
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
    StreamState s = null;
    if (c instanceof SwapSegment x) {
      return streamsById.containsKey(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof TrimPartition x) {
      return streamsById.containsKey(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof AcquireConsumerLease x) {
      return streamsById.containsKey(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof CommitConsumerOffset x) {
      return streamsById.containsKey(x.streamId()) ? x.streamId() : -1;
    } else if (c instanceof UpdateStreamConfig x) {
      s = streamNamed(x.namespace(), x.name());
    } else if (c instanceof AddPartitions x) {
      s = streamNamed(x.namespace(), x.name());
    } else if (c instanceof DeleteStream x) {
      s = streamNamed(x.namespace(), x.name());
    }
    return s == null ? -1 : s.info.id();
  }

  // ---- namespaces and streams

  /** Kafka's topic name rules: 1..249 chars of [A-Za-z0-9._-], not "." or "..". */
  static boolean validName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
      return false;
    }
    if (name.equals(".") || name.equals("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      boolean ok =
          (ch >= 'a' && ch <= 'z')
              || (ch >= 'A' && ch <= 'Z')
              || (ch >= '0' && ch <= '9')
              || ch == '.'
              || ch == '_'
              || ch == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static Outcome.Rejected invalidName(String what, String name) {
    return rejected(
        RejectReason.INVALID,
        "invalid "
            + what
            + " name: 1.."
            + MAX_NAME_LENGTH
            + " of [A-Za-z0-9._-], not . or .. "
            + what
            + "="
            + name);
  }

  private Outcome createNamespace(CreateNamespace c) {
    if (!validName(c.name())) {
      return invalidName("namespace", c.name());
    }
    if (namespaces.containsKey(c.name())) {
      return rejected(RejectReason.ALREADY_EXISTS, "namespace exists namespace=" + c.name());
    }
    namespaces.put(c.name(), new TreeMap<>());
    return new Outcome.NamespaceCreated(c.name());
  }

  private Outcome deleteNamespace(DeleteNamespace c) {
    TreeMap<String, StreamState> streams = namespaces.get(c.name());
    if (streams == null) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace namespace=" + c.name());
    }
    if (DEFAULT_NAMESPACE.equals(c.name())) {
      return rejected(
          RejectReason.INVALID, "the default namespace cannot be deleted namespace=" + c.name());
    }
    if (!streams.isEmpty()) {
      return rejected(
          RejectReason.CONFLICT,
          "namespace still holds streams namespace=" + c.name() + " streams=" + streams.size());
    }
    namespaces.remove(c.name());
    return new Outcome.Deleted(c.name());
  }

  private Outcome createStream(CreateStream c) {
    if (!validName(c.namespace())) {
      return invalidName("namespace", c.namespace());
    }
    if (!validName(c.name())) {
      return invalidName("stream", c.name());
    }
    StreamConfig cfg = c.config();
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    if (cfg == null) {
      return rejected(RejectReason.INVALID, "stream config is required" + where);
    }
    if (cfg.partitions() < 1 || cfg.partitions() > StreamConfig.MAX_PARTITIONS) {
      return rejected(
          RejectReason.INVALID,
          "partitions must be 1.."
              + StreamConfig.MAX_PARTITIONS
              + where
              + " partitions="
              + cfg.partitions());
    }
    if (cfg.retentionMillis() != -1 && cfg.retentionMillis() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionMillis must be -1 or > 0"
              + where
              + " retentionMillis="
              + cfg.retentionMillis());
    }
    if (cfg.retentionBytes() != -1 && cfg.retentionBytes() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionBytes must be -1 or > 0" + where + " retentionBytes=" + cfg.retentionBytes());
    }
    TreeMap<String, StreamState> streams = namespaces.get(c.namespace());
    if (streams == null) {
      return rejected(RejectReason.NOT_FOUND, "no such namespace namespace=" + c.namespace());
    }
    if (streams.containsKey(c.name())) {
      return rejected(RejectReason.ALREADY_EXISTS, "stream exists" + where);
    }
    StreamState s = new StreamState(new StreamInfo(nextStreamId++, c.namespace(), c.name(), cfg));
    streams.put(c.name(), s);
    streamsById.put(s.info.id(), s);
    return new Outcome.StreamCreated(s.info);
  }

  private Outcome deleteStream(DeleteStream c) {
    TreeMap<String, StreamState> streams = namespaces.get(c.namespace());
    StreamState s = streams == null ? null : streams.get(c.name());
    if (s == null) {
      return rejected(
          RejectReason.NOT_FOUND,
          "no such stream namespace=" + c.namespace() + " stream=" + c.name());
    }
    streams.remove(c.name());
    // The partition state goes with it: later commits naming this id get UNKNOWN_PARTITION, and
    // the id is never handed out again (nextStreamId only grows).
    streamsById.remove(s.info.id());
    ownership.remove(s.info.id());
    // Its named consumers go too: a stream re-created under this name is another stream (new id)
    // and starts without committed offsets.
    consumersOf(s.info.id()).clear();
    // Its objects lose these references; those referenced by nothing else are retired for GC.
    for (PartitionState p : s.partitions) {
      for (IndexEntry e : p.entries) {
        unref(e.objectKey());
      }
    }
    return new Outcome.Deleted(c.name());
  }

  private Outcome updateStreamConfig(UpdateStreamConfig c) {
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    StreamState s = streamNamed(c.namespace(), c.name());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream" + where);
    }
    if (c.isEmpty()) {
      return rejected(
          RejectReason.INVALID,
          "an update names at least one of retentionMillis, retentionBytes, cleanupPolicy" + where);
    }
    if (c.retentionMillis() != null && c.retentionMillis() != -1 && c.retentionMillis() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionMillis must be -1 or > 0" + where + " retentionMillis=" + c.retentionMillis());
    }
    if (c.retentionBytes() != null && c.retentionBytes() != -1 && c.retentionBytes() <= 0) {
      return rejected(
          RejectReason.INVALID,
          "retentionBytes must be -1 or > 0" + where + " retentionBytes=" + c.retentionBytes());
    }
    StreamConfig old = s.info.config();
    StreamConfig cfg =
        new StreamConfig(
            old.partitions(),
            old.durabilityClass(),
            c.retentionMillis() != null ? c.retentionMillis() : old.retentionMillis(),
            c.retentionBytes() != null ? c.retentionBytes() : old.retentionBytes(),
            c.cleanupPolicy() != null ? c.cleanupPolicy() : old.cleanupPolicy());
    // Retention applies from the next TrimPartition on: the state machine checks every trim
    // against the configuration current at its apply, so a longer retention is never undercut.
    s.info = new StreamInfo(s.info.id(), s.info.namespace(), s.info.name(), cfg);
    return new Outcome.StreamConfigUpdated(s.info);
  }

  private Outcome addPartitions(AddPartitions c) {
    String where = " namespace=" + c.namespace() + " stream=" + c.name();
    StreamState s = streamNamed(c.namespace(), c.name());
    if (s == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream" + where);
    }
    int current = s.partitions.length;
    if (c.partitions() <= current || c.partitions() > StreamConfig.MAX_PARTITIONS) {
      return rejected(
          RejectReason.INVALID,
          "partitions must be greater than the current count and at most "
              + StreamConfig.MAX_PARTITIONS
              + where
              + " partitions="
              + c.partitions()
              + " currentPartitions="
              + current);
    }
    // Existing partitions keep their state objects (offsets, entries, producers, consumers); the
    // new ones start empty at offset 0. Snapshots write partitions by the configured count, so the
    // layout needs no new version (metastore-snapshot.md).
    PartitionState[] grown = Arrays.copyOf(s.partitions, c.partitions());
    for (int i = current; i < grown.length; i++) {
      grown[i] = new PartitionState();
    }
    StreamConfig old = s.info.config();
    s.partitions = grown;
    s.info =
        new StreamInfo(
            s.info.id(),
            s.info.namespace(),
            s.info.name(),
            new StreamConfig(
                c.partitions(),
                old.durabilityClass(),
                old.retentionMillis(),
                old.retentionBytes(),
                old.cleanupPolicy()));
    return new Outcome.PartitionsAdded(s.info, current);
  }

  private StreamState streamNamed(String namespace, String name) {
    TreeMap<String, StreamState> streams = namespace == null ? null : namespaces.get(namespace);
    return streams == null || name == null ? null : streams.get(name);
  }

  // ---- CommitWal: the sequencer (§3 "Commit window" and "Sequencer")

  private Outcome commitWal(CommitWal c) {
    String key = c.objectKey();
    if (key == null || key.isEmpty()) {
      return rejected(RejectReason.INVALID, "commit names no object object=" + key);
    }
    // Dedupe by object path before anything else: a retry returns the first commit's offsets and
    // appends nothing, so a commit is never applied twice (§3, D27).
    DedupeRecord previous = dedupeByKey.get(key);
    if (previous != null && !expired(previous)) {
      return new Outcome.WalCommitted(true, previous.outcome().chunks());
    }
    // A commit older than the window is refused; since dedupe records live longer than the window
    // (MetaSettings enforces dedupeRetention >= staleCommitAfter), a retry whose record is gone
    // always lands here and is never appended a second time.
    if (c.objectTimeMillis() < clockMillis - staleCommitMillis) {
      return rejected(
          RejectReason.STALE_COMMIT,
          "commit is older than the stale-commit window object="
              + key
              + " objectTime="
              + c.objectTimeMillis()
              + " clock="
              + clockMillis
              + " staleCommitAfterMillis="
              + staleCommitMillis);
    }
    String invalid = validate(c);
    if (invalid != null) {
      return rejected(RejectReason.INVALID, invalid + " object=" + key);
    }
    List<List<BatchResult>> results = new ArrayList<>(c.chunks().size());
    for (ChunkCommit chunk : c.chunks()) {
      results.add(sequenceChunk(key, chunk));
    }
    if (!refs.containsKey(key)) {
      // Nothing was appended (duplicates, unknown partitions): the object exists but no entry will
      // ever reference it, so it is garbage at once.
      retire(key);
    }
    Outcome.WalCommitted outcome = new Outcome.WalCommitted(false, results);
    if (previous != null) {
      dedupeByTime.remove(previous);
    }
    DedupeRecord rec = new DedupeRecord(key, c.objectTimeMillis(), outcome);
    dedupeByKey.put(key, rec);
    dedupeByTime.add(rec);
    return outcome;
  }

  /** Structural checks of a commit; returns a message or null when valid. */
  // Built only when a batch is refused: validate runs on every commit (the apply hot path).
  private static String at(int chunk, int batch) {
    return " chunk=" + chunk + " batch=" + batch;
  }

  private static String validate(CommitWal c) {
    if (c.objectSize() < 0) {
      return "objectSize must be >= 0 objectSize=" + c.objectSize();
    }
    List<long[]> ranges = new ArrayList<>();
    for (int ci = 0; ci < c.chunks().size(); ci++) {
      ChunkCommit chunk = c.chunks().get(ci);
      long prevEnd = -1;
      for (int bi = 0; bi < chunk.batches().size(); bi++) {
        BatchCommit b = chunk.batches().get(bi);
        if (b.recordCount() < 1) {
          return "recordCount must be >= 1" + at(ci, bi) + " recordCount=" + b.recordCount();
        }
        if (b.byteLength() < MIN_BATCH_BYTES) {
          return "byteLength must be >= "
              + MIN_BATCH_BYTES
              + at(ci, bi)
              + " byteLength="
              + b.byteLength();
        }
        if (b.byteOffset() < 0 || b.byteOffset() > c.objectSize() - b.byteLength()) {
          return "batch lies outside the object"
              + at(ci, bi)
              + " byteOffset="
              + b.byteOffset()
              + " byteLength="
              + b.byteLength()
              + " objectSize="
              + c.objectSize();
        }
        if (b.byteOffset() < prevEnd) {
          return "batches must be in increasing, non-overlapping byte order"
              + at(ci, bi)
              + " byteOffset="
              + b.byteOffset();
        }
        if (b.producerId() >= 0 && (b.producerEpoch() < 0 || b.baseSequence() < 0)) {
          return "an idempotent batch needs producerEpoch >= 0 and baseSequence >= 0"
              + at(ci, bi)
              + " producerId="
              + b.producerId()
              + " producerEpoch="
              + b.producerEpoch()
              + " baseSequence="
              + b.baseSequence();
        }
        prevEnd = b.byteOffset() + b.byteLength();
        ranges.add(new long[] {b.byteOffset(), prevEnd});
      }
    }
    // Batches of different chunks must not overlap either: one byte belongs to one partition.
    ranges.sort(Comparator.comparingLong(r -> r[0]));
    for (int i = 1; i < ranges.size(); i++) {
      if (ranges.get(i)[0] < ranges.get(i - 1)[1]) {
        return "batches of different chunks overlap byteOffset=" + ranges.get(i)[0];
      }
    }
    return null;
  }

  private List<BatchResult> sequenceChunk(String objectKey, ChunkCommit chunk) {
    List<BatchResult> out = new ArrayList<>(chunk.batches().size());
    StreamState s = streamsById.get(chunk.streamId());
    if (s == null || chunk.partition() < 0 || chunk.partition() >= s.partitions.length) {
      for (int i = 0; i < chunk.batches().size(); i++) {
        out.add(new BatchResult(BatchStatus.UNKNOWN_PARTITION, -1));
      }
      return out;
    }
    PartitionState p = s.partitions[chunk.partition()];
    Run run = null;
    for (BatchCommit b : chunk.batches()) {
      BatchResult r = checkProducer(p, b);
      if (r.status() != BatchStatus.APPENDED) {
        out.add(r);
        continue;
      }
      long base = p.highWatermark;
      p.highWatermark += b.recordCount();
      if (b.producerId() >= 0) {
        recordProducerBatch(p, b, base);
      }
      out.add(new BatchResult(BatchStatus.APPENDED, base));
      // Byte-adjacent accepted batches of one chunk share one index entry: fewer entries, and a
      // reader fetches them with one ranged GET. Offsets are adjacent too, since nothing else is
      // appended to this partition inside one chunk.
      if (run != null && run.canExtend(b)) {
        run.extend(b);
      } else {
        if (run != null) {
          addEntry(p, run.toEntry(objectKey));
        }
        run = new Run(base, b);
      }
    }
    if (run != null) {
      addEntry(p, run.toEntry(objectKey));
    }
    return out;
  }

  /**
   * Kafka's idempotent-producer check against the last {@code producerBatchesKept} batches of the
   * producer (§3 "Sequencer"). Returns APPENDED (with a placeholder offset) when the batch is to be
   * appended.
   */
  private BatchResult checkProducer(PartitionState p, BatchCommit b) {
    if (b.producerId() < 0) {
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    ProducerState ps = p.producers.get(b.producerId());
    if (ps == null) {
      // Unknown producer (new, or its state was lost): any sequence starts it, as Kafka does.
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    if (b.producerEpoch() < ps.epoch) {
      return new BatchResult(BatchStatus.PRODUCER_FENCED, -1);
    }
    if (b.producerEpoch() > ps.epoch) {
      return new BatchResult(
          b.baseSequence() == 0 ? BatchStatus.APPENDED : BatchStatus.OUT_OF_ORDER_SEQUENCE, -1);
    }
    int last = lastSequence(b.baseSequence(), b.recordCount());
    SeqEntry dup = ps.find(b.baseSequence(), last);
    if (dup != null) {
      return new BatchResult(BatchStatus.DUPLICATE, dup.baseOffset());
    }
    if (b.baseSequence() == nextSequence(ps.batches.peekLast().lastSequence())) {
      return new BatchResult(BatchStatus.APPENDED, -1);
    }
    return new BatchResult(BatchStatus.OUT_OF_ORDER_SEQUENCE, -1);
  }

  private void recordProducerBatch(PartitionState p, BatchCommit b, long baseOffset) {
    ProducerState ps = p.producers.get(b.producerId());
    if (ps == null) {
      ps = new ProducerState(b.producerEpoch());
      p.producers.put(b.producerId(), ps);
    } else if (b.producerEpoch() != ps.epoch) {
      // A new epoch (accepted only at sequence 0) starts a fresh sequence history.
      ps.epoch = b.producerEpoch();
      ps.batches.clear();
    }
    ps.add(
        new SeqEntry(b.baseSequence(), lastSequence(b.baseSequence(), b.recordCount()), baseOffset),
        settings.producerBatchesKept());
  }

  /** Kafka's sequence arithmetic: sequences wrap from Integer.MAX_VALUE to 0. */
  static int lastSequence(int baseSequence, int recordCount) {
    return (int) (((long) baseSequence + recordCount - 1) % (1L + Integer.MAX_VALUE));
  }

  static int nextSequence(int lastSequence) {
    return lastSequence == Integer.MAX_VALUE ? 0 : lastSequence + 1;
  }

  private boolean expired(DedupeRecord r) {
    return r.objectTimeMillis() < clockMillis - dedupeRetentionMillis;
  }

  /** Drops dedupe records older than the retention, oldest first, a bounded number per apply. */
  private void pruneDedupe() {
    for (int i = 0; i < MAX_PRUNE_PER_APPLY && !dedupeByTime.isEmpty(); i++) {
      DedupeRecord oldest = dedupeByTime.first();
      if (!expired(oldest)) {
        return;
      }
      dedupeByTime.pollFirst();
      dedupeByKey.remove(oldest.objectKey());
    }
  }

  private static Outcome.Rejected rejected(RejectReason reason, String message) {
    return new Outcome.Rejected(reason, message);
  }

  /** An open run of byte-adjacent accepted batches that will become one index entry. */
  private static final class Run {
    final long baseOffset;
    final long byteOffset;
    long recordCount;
    long byteLength;
    long maxTimestamp;

    Run(long baseOffset, BatchCommit b) {
      this.baseOffset = baseOffset;
      this.byteOffset = b.byteOffset();
      this.recordCount = b.recordCount();
      this.byteLength = b.byteLength();
      this.maxTimestamp = b.maxTimestamp();
    }

    boolean canExtend(BatchCommit b) {
      return b.byteOffset() == byteOffset + byteLength
          && byteLength + b.byteLength() <= Integer.MAX_VALUE
          && recordCount + b.recordCount() <= Integer.MAX_VALUE;
    }

    void extend(BatchCommit b) {
      recordCount += b.recordCount();
      byteLength += b.byteLength();
      maxTimestamp = Math.max(maxTimestamp, b.maxTimestamp());
    }

    IndexEntry toEntry(String objectKey) {
      return new IndexEntry(
          baseOffset, (int) recordCount, objectKey, byteOffset, (int) byteLength, maxTimestamp);
    }
  }

  /** A stream and its partitions. */
  private static final class StreamState {
    /**
     * Replaced by UpdateStreamConfig and AddPartitions; the id, namespace and name never change.
     */
    StreamInfo info;

    /** One per configured partition; AddPartitions appends empty ones, nothing removes any. */
    PartitionState[] partitions;

    StreamState(StreamInfo info) {
      this.info = info;
      this.partitions = new PartitionState[info.config().partitions()];
      for (int i = 0; i < partitions.length; i++) {
        partitions[i] = new PartitionState();
      }
    }
  }

  /** A committed object's first outcome, kept for the dedupe window (§3 commit window). */
  private record DedupeRecord(
      String objectKey, long objectTimeMillis, Outcome.WalCommitted outcome) {}

  // ---- segments, retention and the object lifecycle (stream-engine.txt §5)

  private void addEntry(PartitionState p, IndexEntry e) {
    p.addEntry(e);
    refs.merge(e.objectKey(), 1, Integer::sum);
  }

  /** Drops one reference to {@code key}; the last one retires the object. */
  private void unref(String key) {
    Integer n = refs.get(key);
    if (n == null) {
      throw new IllegalStateException("unreferenced object lost a reference object=" + key);
    }
    if (n == 1) {
      refs.remove(key);
      retire(key);
    } else {
      refs.put(key, n - 1);
    }
  }

  private void retire(String key) {
    if (!retiredByKey.containsKey(key)) {
      RetiredObject r = new RetiredObject(key, clockMillis);
      retiredByKey.put(key, r);
      retiredByTime.add(r);
    }
  }

  /** Replaces entries {@code [from, to)} of {@code p} by {@code replacement}, in place. */
  private static void replaceEntries(
      PartitionState p, int from, int to, List<IndexEntry> replacement) {
    List<IndexEntry> all = new ArrayList<>(p.entries.size() - (to - from) + replacement.size());
    all.addAll(p.entries.subList(0, from));
    all.addAll(replacement);
    all.addAll(p.entries.subList(to, p.entries.size()));
    // Rebuild so the prefix max timestamps stay right: O(entries), bounded by the partition's
    // index size, which segmenting keeps small.
    p.entries.clear();
    for (IndexEntry e : all) {
      p.addEntry(e);
    }
  }

  /** Index of the entry starting exactly at {@code offset}, or -1. */
  private static int entryStartingAt(PartitionState p, long offset) {
    List<IndexEntry> found = p.entriesFrom(offset, 1);
    if (found.isEmpty() || found.get(0).baseOffset() != offset) {
      return -1;
    }
    // entriesFrom found it by binary search; locate its position the same way.
    int lo = 0;
    int hi = p.entries.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long b = p.entries.get(mid).baseOffset();
      if (b == offset) {
        return mid;
      } else if (b < offset) {
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return -1;
  }

  private Outcome swapSegment(SwapSegment c) {
    String where =
        " stream="
            + c.streamId()
            + " partition="
            + c.partition()
            + " from="
            + c.fromOffset()
            + " to="
            + c.toOffset()
            + " segment="
            + c.segmentKey();
    PartitionState p = partitionState(c.streamId(), c.partition());
    if (p == null) {
      return rejected(RejectReason.NOT_FOUND, "no such partition" + where);
    }
    if (c.segmentKey() == null || c.segmentKey().isEmpty()) {
      return rejected(RejectReason.INVALID, "swap names no segment" + where);
    }
    if (c.segmentTimeMillis() < clockMillis - staleCommitMillis) {
      // GC deletes unreferenced objects older than its orphan age, which is longer than this
      // window: refusing old segments here is what makes that deletion safe.
      return rejected(
          RejectReason.STALE_COMMIT,
          "segment is older than the stale-commit window"
              + where
              + " segmentTime="
              + c.segmentTimeMillis()
              + " clock="
              + clockMillis);
    }
    String invalid = validateSwap(c);
    if (invalid != null) {
      return rejected(RejectReason.INVALID, invalid + where);
    }
    List<IndexEntry> replacement = new ArrayList<>(c.entries().size());
    long offset = c.fromOffset();
    for (SwapSegment.SegmentEntry e : c.entries()) {
      replacement.add(
          new IndexEntry(
              offset,
              e.recordCount(),
              c.segmentKey(),
              e.byteOffset(),
              e.byteLength(),
              e.maxTimestamp()));
      offset += e.recordCount();
    }
    int first = entryStartingAt(p, c.fromOffset());
    if (first >= 0) {
      int end = first + replacement.size();
      if (end <= p.entries.size() && p.entries.subList(first, end).equals(replacement)) {
        // Already in place: a retry of a swap whose outcome was unknown.
        return new Outcome.SegmentSwapped(true, 0);
      }
    }
    // Compare-and-swap: exactly the expected entries must cover the range now.
    int last = first < 0 ? -1 : first + c.expected().size();
    if (first < 0
        || last > p.entries.size()
        || !p.entries.subList(first, last).equals(c.expected())) {
      return rejected(
          RejectReason.CONFLICT, "index entries changed since the segment was built" + where);
    }
    if (refs.containsKey(c.segmentKey()) || retiredByKey.containsKey(c.segmentKey())) {
      return rejected(RejectReason.CONFLICT, "segment object is already in use" + where);
    }
    for (IndexEntry e : c.expected()) {
      unref(e.objectKey());
    }
    replaceEntries(p, first, last, replacement);
    refs.put(c.segmentKey(), replacement.size());
    return new Outcome.SegmentSwapped(false, c.expected().size());
  }

  /** Structural checks of a swap; returns a message or null when valid. */
  private static String validateSwap(SwapSegment c) {
    if (c.fromOffset() < 0 || c.toOffset() <= c.fromOffset()) {
      return "swap range must be non-empty";
    }
    if (c.expected().isEmpty() || c.entries().isEmpty()) {
      return "swap needs expected and new entries";
    }
    long next = c.fromOffset();
    for (IndexEntry e : c.expected()) {
      if (e.baseOffset() != next || e.recordCount() < 1) {
        return "expected entries must be dense from the range start baseOffset=" + e.baseOffset();
      }
      next = e.endOffset();
    }
    if (next != c.toOffset()) {
      return "expected entries must end at the range end end=" + next;
    }
    long records = 0;
    long prevEnd = 0;
    for (int i = 0; i < c.entries().size(); i++) {
      SwapSegment.SegmentEntry e = c.entries().get(i);
      if (e.recordCount() < 1 || e.byteLength() < MIN_BATCH_BYTES) {
        return "segment entry needs recordCount >= 1 and byteLength >= "
            + MIN_BATCH_BYTES
            + " entry="
            + i;
      }
      if (e.byteOffset() < prevEnd || e.byteOffset() > c.segmentSize() - e.byteLength()) {
        return "segment entries must be in increasing byte order inside the segment entry="
            + i
            + " byteOffset="
            + e.byteOffset()
            + " segmentSize="
            + c.segmentSize();
      }
      prevEnd = e.byteOffset() + e.byteLength();
      records += e.recordCount();
    }
    if (records != c.toOffset() - c.fromOffset()) {
      return "segment entries must hold exactly the range's records records=" + records;
    }
    return null;
  }

  private Outcome trimPartition(TrimPartition c) {
    String where =
        " stream="
            + c.streamId()
            + " partition="
            + c.partition()
            + " newLogStart="
            + c.newLogStartOffset()
            + " reason="
            + c.reason();
    StreamState s = streamsById.get(c.streamId());
    PartitionState p = partitionState(c.streamId(), c.partition());
    if (s == null || p == null || c.reason() == null) {
      return rejected(RejectReason.NOT_FOUND, "no such partition" + where);
    }
    if (c.newLogStartOffset() <= p.logStartOffset) {
      return new Outcome.Trimmed(p.logStartOffset, 0);
    }
    if (c.newLogStartOffset() > p.highWatermark) {
      return rejected(
          RejectReason.INVALID,
          "log start cannot pass the high watermark" + where + " highWatermark=" + p.highWatermark);
    }
    int drop = 0;
    while (drop < p.entries.size() && p.entries.get(drop).endOffset() <= c.newLogStartOffset()) {
      drop++;
    }
    if (drop == 0 || p.entries.get(drop - 1).endOffset() != c.newLogStartOffset()) {
      return rejected(RejectReason.INVALID, "log start must be the end of an index entry" + where);
    }
    StreamConfig cfg = s.info.config();
    if (c.reason() == TrimPartition.Reason.TIME) {
      if (cfg.retentionMillis() < 0) {
        return rejected(RejectReason.INVALID, "stream has no time retention" + where);
      }
      long horizon = clockMillis - cfg.retentionMillis();
      for (int i = 0; i < drop; i++) {
        if (p.entries.get(i).maxTimestamp() >= horizon) {
          return rejected(
              RejectReason.INVALID,
              "entry is inside the time retention"
                  + where
                  + " maxTimestamp="
                  + p.entries.get(i).maxTimestamp()
                  + " horizon="
                  + horizon);
        }
      }
    } else {
      if (cfg.retentionBytes() < 0) {
        return rejected(RejectReason.INVALID, "stream has no size retention" + where);
      }
      if (drop >= p.entries.size()) {
        // Kafka never deletes the active segment: the newest entry always stays.
        return rejected(
            RejectReason.INVALID, "size retention never drops the newest entry" + where);
      }
      // Kafka's rule: drop old data only while at least the retention stays (a partition may exceed
      // its limit by less than one entry, never fall below it because of a trim).
      long kept = 0;
      for (int i = drop; i < p.entries.size(); i++) {
        kept += p.entries.get(i).byteLength();
      }
      if (kept < cfg.retentionBytes()) {
        return rejected(
            RejectReason.INVALID,
            "trim drops more than the size retention needs"
                + where
                + " retentionBytes="
                + cfg.retentionBytes());
      }
    }
    List<IndexEntry> dropped = new ArrayList<>(p.entries.subList(0, drop));
    replaceEntries(p, 0, drop, List.of());
    p.logStartOffset = c.newLogStartOffset();
    for (IndexEntry e : dropped) {
      unref(e.objectKey());
    }
    return new Outcome.Trimmed(p.logStartOffset, drop);
  }

  private Outcome deleteObjects(DeleteObjects c) {
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

  // ---- producer ids and named consumers (stream-engine.txt §7)

  private Outcome allocateProducerIds(AllocateProducerIds c) {
    if (c.count() < 1 || c.count() > AllocateProducerIds.MAX_COUNT) {
      return rejected(
          RejectReason.INVALID,
          "producer id count must be 1.." + AllocateProducerIds.MAX_COUNT + " count=" + c.count());
    }
    if (nextProducerId > Long.MAX_VALUE - c.count()) {
      return rejected(
          RejectReason.INVALID,
          "producer ids exhausted nextProducerId=" + nextProducerId + " count=" + c.count());
    }
    long first = nextProducerId;
    nextProducerId += c.count();
    return new Outcome.ProducerIdsAllocated(first, c.count());
  }

  private Outcome acquireConsumerLease(AcquireConsumerLease c) {
    String where = consumerText(c.streamId(), c.partition(), c.consumer());
    if (!validName(c.consumer())) {
      return invalidName("consumer", c.consumer());
    }
    if (c.holder().isEmpty() || c.holder().length() > AcquireConsumerLease.MAX_HOLDER_LENGTH) {
      return rejected(
          RejectReason.INVALID,
          "holder must be 1.."
              + AcquireConsumerLease.MAX_HOLDER_LENGTH
              + " characters"
              + where
              + " holderLength="
              + c.holder().length());
    }
    if (c.leaseMillis() < 1 || c.leaseMillis() > AcquireConsumerLease.MAX_LEASE_MILLIS) {
      return rejected(
          RejectReason.INVALID,
          "leaseMillis must be 1.."
              + AcquireConsumerLease.MAX_LEASE_MILLIS
              + where
              + " leaseMillis="
              + c.leaseMillis());
    }
    if (partitionState(c.streamId(), c.partition()) == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream or partition" + where);
    }
    ConsumerKey key = new ConsumerKey(c.streamId(), c.partition(), c.consumer());
    ConsumerLease cur = consumers.get(key);
    long expires = saturatedAdd(clockMillis, c.leaseMillis());
    ConsumerLease next;
    if (cur == null) {
      int held = consumersOf(c.streamId(), c.partition()).size();
      if (held >= MAX_CONSUMERS_PER_PARTITION) {
        return rejected(
            RejectReason.INVALID,
            "too many named consumers on the partition max=" + MAX_CONSUMERS_PER_PARTITION + where);
      }
      next =
          new ConsumerLease(
              c.streamId(),
              c.partition(),
              c.consumer(),
              1,
              c.holder(),
              c.leaseMillis(),
              expires,
              ConsumerLease.NO_OFFSET);
    } else if (cur.liveAt(clockMillis)) {
      if (!cur.holder().equals(c.holder())) {
        // A live lease is never taken over: the holder may be committing right now. It ends by
        // expiry (the metastore clock passing expiresAt), after which anyone may acquire.
        return rejected(
            RejectReason.CONFLICT,
            "the consumer lease is held by another holder"
                + where
                + " holder="
                + cur.holder()
                + " generation="
                + cur.generation()
                + " expiresAtMillis="
                + cur.expiresAtMillis()
                + " clock="
                + clockMillis);
      }
      // The holder renews (a heartbeat, or a retry of its acquire): same generation.
      next =
          new ConsumerLease(
              cur.streamId(),
              cur.partition(),
              cur.consumer(),
              cur.generation(),
              cur.holder(),
              c.leaseMillis(),
              expires,
              cur.committedOffset());
    } else {
      // Expired: a new term with a higher generation, which fences every commit of the old one,
      // even by the same holder (it may be a zombie of itself). The committed offset stays.
      next =
          new ConsumerLease(
              cur.streamId(),
              cur.partition(),
              cur.consumer(),
              cur.generation() + 1,
              c.holder(),
              c.leaseMillis(),
              expires,
              cur.committedOffset());
    }
    consumers.put(key, next);
    return new Outcome.ConsumerLeaseGranted(next);
  }

  private Outcome commitConsumerOffset(CommitConsumerOffset c) {
    String where = consumerText(c.streamId(), c.partition(), c.consumer());
    if (!validName(c.consumer())) {
      return invalidName("consumer", c.consumer());
    }
    PartitionState p = partitionState(c.streamId(), c.partition());
    if (p == null) {
      return rejected(RejectReason.NOT_FOUND, "no such stream or partition" + where);
    }
    ConsumerLease cur = consumers.get(new ConsumerKey(c.streamId(), c.partition(), c.consumer()));
    // Fencing before range checks: a stale holder learns only that it is stale (§7).
    if (cur == null) {
      return rejected(
          RejectReason.FENCED,
          "the consumer holds no lease on the partition" + where + " generation=" + c.generation());
    }
    if (c.generation() != cur.generation()) {
      return rejected(
          RejectReason.FENCED,
          "stale consumer generation"
              + where
              + " generation="
              + c.generation()
              + " currentGeneration="
              + cur.generation());
    }
    if (!cur.liveAt(clockMillis)) {
      return rejected(
          RejectReason.FENCED,
          "the consumer lease expired"
              + where
              + " generation="
              + c.generation()
              + " expiresAtMillis="
              + cur.expiresAtMillis()
              + " clock="
              + clockMillis);
    }
    if (c.offset() < p.logStartOffset || c.offset() > p.highWatermark) {
      return rejected(
          RejectReason.OUT_OF_RANGE,
          "committed offset out of range"
              + where
              + " offset="
              + c.offset()
              + " logStartOffset="
              + p.logStartOffset
              + " highWatermark="
              + p.highWatermark);
    }
    // A commit proves the holder is alive: it renews the lease.
    ConsumerLease next =
        new ConsumerLease(
            cur.streamId(),
            cur.partition(),
            cur.consumer(),
            cur.generation(),
            cur.holder(),
            cur.leaseMillis(),
            saturatedAdd(clockMillis, cur.leaseMillis()),
            c.offset());
    consumers.put(new ConsumerKey(c.streamId(), c.partition(), c.consumer()), next);
    return new Outcome.ConsumerOffsetCommitted(next);
  }

  private static String consumerText(long streamId, int partition, String consumer) {
    return " streamId=" + streamId + " partition=" + partition + " consumer=" + consumer;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /** Every consumer entry of one stream (a live view). */
  private java.util.NavigableMap<ConsumerKey, ConsumerLease> consumersOf(long streamId) {
    return consumers.subMap(
        new ConsumerKey(streamId, Integer.MIN_VALUE, ""),
        true,
        // Partitions are below StreamConfig.MAX_PARTITIONS, so this bound excludes none.
        new ConsumerKey(streamId, Integer.MAX_VALUE, ""),
        false);
  }

  /** Every consumer entry of one partition (a live view). */
  private java.util.NavigableMap<ConsumerKey, ConsumerLease> consumersOf(
      long streamId, int partition) {
    return consumers.subMap(
        new ConsumerKey(streamId, partition, ""),
        true,
        new ConsumerKey(streamId, partition + 1, ""),
        false);
  }

  /** The key of a named consumer's state; sorted so reads and snapshots are ordered. */
  private record ConsumerKey(long streamId, int partition, String consumer)
      implements Comparable<ConsumerKey> {
    @Override
    public int compareTo(ConsumerKey o) {
      int c = Long.compare(streamId, o.streamId);
      if (c == 0) {
        c = Integer.compare(partition, o.partition);
      }
      return c != 0 ? c : consumer.compareTo(o.consumer);
    }
  }

  // ---- reads

  private PartitionState partitionState(long streamId, int partition) {
    StreamState s = streamsById.get(streamId);
    if (s == null || partition < 0 || partition >= s.partitions.length) {
      return null;
    }
    return s.partitions[partition];
  }

  private final class View implements MetaReader {
    @Override
    public long appliedIndex() {
      return appliedIndex;
    }

    @Override
    public long clockMillis() {
      return clockMillis;
    }

    @Override
    public Optional<NodeInfo> node(String nodeId) {
      return Optional.ofNullable(nodes.get(nodeId));
    }

    @Override
    public List<NodeInfo> nodes() {
      return List.copyOf(nodes.values());
    }

    @Override
    public Optional<NodeStatus> nodeStatus(String nodeId) {
      NodeInfo n = nodeId == null ? null : nodes.get(nodeId);
      return n == null ? Optional.empty() : Optional.of(ownership.status(n));
    }

    @Override
    public Optional<StreamOwnership> ownership(long streamId) {
      return streamsById.containsKey(streamId)
          ? Optional.of(ownership.get(streamId))
          : Optional.empty();
    }

    @Override
    public int assignedStreams(String nodeId) {
      return ownership.assigned(nodeId);
    }

    @Override
    public Optional<String> placementChoice() {
      return Optional.ofNullable(ownership.choose(nodes.values()));
    }

    @Override
    public List<StreamOwnership> ownershipsInvolving(String nodeId) {
      return ownership.involving(nodeId);
    }

    @Override
    public boolean namespaceExists(String namespace) {
      return namespaces.containsKey(namespace);
    }

    @Override
    public List<String> namespaces() {
      return List.copyOf(namespaces.keySet());
    }

    @Override
    public Optional<StreamInfo> stream(String namespace, String name) {
      TreeMap<String, StreamState> streams = namespaces.get(namespace);
      StreamState s = streams == null ? null : streams.get(name);
      return s == null ? Optional.empty() : Optional.of(s.info);
    }

    @Override
    public Optional<StreamInfo> streamById(long streamId) {
      StreamState s = streamsById.get(streamId);
      return s == null ? Optional.empty() : Optional.of(s.info);
    }

    @Override
    public List<StreamInfo> streams(String namespace) {
      TreeMap<String, StreamState> streams = namespaces.get(namespace);
      if (streams == null) {
        return List.of();
      }
      return streams.values().stream().map(s -> s.info).toList();
    }

    @Override
    public Optional<PartitionInfo> partition(long streamId, int partition) {
      PartitionState p = partitionState(streamId, partition);
      if (p == null) {
        return Optional.empty();
      }
      return Optional.of(new PartitionInfo(streamId, partition, p.logStartOffset, p.highWatermark));
    }

    @Override
    public List<IndexEntry> indexEntries(
        long streamId, int partition, long fromOffset, int maxEntries) {
      PartitionState p = partitionState(streamId, partition);
      return p == null ? List.of() : p.entriesFrom(fromOffset, maxEntries);
    }

    @Override
    public int objectRefs(String objectKey) {
      return refs.getOrDefault(objectKey, 0);
    }

    @Override
    public Optional<RetiredObject> retired(String objectKey) {
      return Optional.ofNullable(retiredByKey.get(objectKey));
    }

    @Override
    public List<RetiredObject> retiredObjects(int maxObjects) {
      List<RetiredObject> out = new ArrayList<>(Math.min(Math.max(maxObjects, 0), 1024));
      for (RetiredObject r : retiredByTime) {
        if (out.size() >= maxObjects) {
          break;
        }
        out.add(r);
      }
      return out;
    }

    @Override
    public int retiredCount() {
      return retiredByKey.size();
    }

    @Override
    public long nextProducerId() {
      return nextProducerId;
    }

    @Override
    public Optional<ConsumerLease> consumerLease(long streamId, int partition, String consumer) {
      if (consumer == null) {
        return Optional.empty();
      }
      return Optional.ofNullable(consumers.get(new ConsumerKey(streamId, partition, consumer)));
    }

    @Override
    public List<ConsumerLease> consumerLeases(long streamId, String consumer) {
      List<ConsumerLease> out = new ArrayList<>();
      for (ConsumerLease l : consumersOf(streamId).values()) {
        if (l.consumer().equals(consumer)) {
          out.add(l);
        }
      }
      return out;
    }

    @Override
    public Optional<IndexEntry> entryForTimestamp(
        long streamId, int partition, long timestampMillis) {
      PartitionState p = partitionState(streamId, partition);
      return p == null
          ? Optional.empty()
          : Optional.ofNullable(p.entryForTimestamp(timestampMillis));
    }
  }

  // ---- snapshots (docs/formats/metastore-snapshot.md)

  /** The whole state as versioned bytes with a CRC-32C trailer; identical on every replica. */
  public byte[] snapshot() {
    BinaryWriter w = new BinaryWriter(4096);
    // The oldest version that can hold this state, so a state that never retired anything is
    // byte-identical to a v1 writer's (metastore-snapshot.md read compatibility).
    int version;
    if (!ownership.isDefault()) {
      version = 4;
    } else if (nextProducerId != 0 || !consumers.isEmpty()) {
      version = 3;
    } else {
      version = retiredByTime.isEmpty() ? 1 : 2;
    }
    w.i32(SNAPSHOT_MAGIC).i16(version).i16(0); // reserved flags
    w.i64(appliedIndex).i64(clockMillis).i64(nextStreamId);
    w.i32(nodes.size());
    for (NodeInfo n : nodes.values()) {
      w.string(n.id())
          .i64(n.epoch())
          .nullableString(n.advertisedAddress())
          .i32(n.slots())
          .nullableString(n.zone());
    }
    w.i32(namespaces.size());
    for (String ns : namespaces.keySet()) {
      w.string(ns);
    }
    w.i32(streamsById.size());
    for (StreamState s : streamsById.values()) {
      w.i64(s.info.id()).string(s.info.namespace()).string(s.info.name());
      CommandCodec.writeConfig(w, s.info.config());
      for (PartitionState p : s.partitions) {
        w.i64(p.logStartOffset).i64(p.highWatermark).i32(p.entries.size());
        for (IndexEntry e : p.entries) {
          w.i64(e.baseOffset())
              .i32(e.recordCount())
              .string(e.objectKey())
              .i64(e.byteOffset())
              .i32(e.byteLength())
              .i64(e.maxTimestamp());
        }
        w.i32(p.producers.size());
        for (Map.Entry<Long, ProducerState> pe : p.producers.entrySet()) {
          ProducerState ps = pe.getValue();
          w.i64(pe.getKey()).i16(ps.epoch).i32(ps.batches.size());
          for (SeqEntry se : ps.batches) {
            w.i32(se.baseSequence()).i32(se.lastSequence()).i64(se.baseOffset());
          }
        }
      }
    }
    w.i32(dedupeByTime.size());
    for (DedupeRecord r : dedupeByTime) {
      w.string(r.objectKey()).i64(r.objectTimeMillis()).bytes(OutcomeCodec.encode(r.outcome()));
    }
    if (version >= 2) {
      // Version 2 and 3: the retired objects, oldest first (v2: at least one; v3: any number).
      w.i32(retiredByTime.size());
      for (RetiredObject r : retiredByTime) {
        w.string(r.objectKey()).i64(r.retiredAtMillis());
      }
    }
    if (version >= 3) {
      // Version 3: the producer-id counter, then the named consumers by key.
      w.i64(nextProducerId);
      w.i32(consumers.size());
      for (ConsumerLease l : consumers.values()) {
        CommandCodec.writeLease(w, l);
      }
    }
    if (version >= 4) {
      ownership.write(w);
    }
    byte[] body = w.toByteArray();
    CRC32C crc = new CRC32C();
    crc.update(body, 0, body.length);
    return new BinaryWriter(body.length + 4).raw(body).i32((int) crc.getValue()).toByteArray();
  }

  /**
   * Rebuilds a state machine from {@link #snapshot()} bytes. Bad magic, version, checksum or
   * structure is a {@link CorruptionException} naming the field.
   */
  public static MetaStateMachine restore(byte[] snapshot, MetaSettings settings) {
    Objects.requireNonNull(snapshot, "snapshot");
    BinaryReader head = new BinaryReader(SNAPSHOT_FORMAT, snapshot);
    if (snapshot.length < 12) {
      throw head.corrupt("length", "too short length=" + snapshot.length);
    }
    int magic = head.i32("magic");
    if (magic != SNAPSHOT_MAGIC) {
      throw head.corrupt("magic", "bad magic=0x" + Integer.toHexString(magic));
    }
    int version = head.i16("version");
    if (version < 1 || version > SNAPSHOT_VERSION) {
      throw head.corrupt("version", "unsupported version=" + version);
    }
    CRC32C crc = new CRC32C();
    crc.update(snapshot, 0, snapshot.length - 4);
    BinaryReader tail = new BinaryReader(SNAPSHOT_FORMAT, snapshot, snapshot.length - 4, 4);
    int stored = tail.i32("crc32c");
    if (stored != (int) crc.getValue()) {
      throw tail.corrupt(
          "crc32c",
          "checksum mismatch stored=0x"
              + Integer.toHexString(stored)
              + " computed=0x"
              + Long.toHexString(crc.getValue()));
    }
    BinaryReader r = new BinaryReader(SNAPSHOT_FORMAT, snapshot, 6, snapshot.length - 10);
    if (r.i16("flags") != 0) {
      throw r.corrupt("flags", "reserved flags must be 0");
    }
    MetaStateMachine m = new MetaStateMachine(settings);
    m.namespaces.clear();
    m.appliedIndex = r.i64("appliedIndex");
    m.clockMillis = r.i64("clockMillis");
    m.nextStreamId = r.i64("nextStreamId");
    int nNodes = r.count("nodes.count", 4 + 8 + 4 + 4 + 4);
    for (int i = 0; i < nNodes; i++) {
      NodeInfo n =
          new NodeInfo(
              r.string("node.id"),
              r.i64("node.epoch"),
              r.nullableString("node.advertisedAddress"),
              r.i32("node.slots"),
              r.nullableString("node.zone"));
      if (m.nodes.put(n.id(), n) != null) {
        throw r.corrupt("node.id", "duplicate node=" + n.id());
      }
    }
    int nNamespaces = r.count("namespaces.count", 4);
    for (int i = 0; i < nNamespaces; i++) {
      String ns = r.string("namespace");
      if (m.namespaces.put(ns, new TreeMap<>()) != null) {
        throw r.corrupt("namespace", "duplicate namespace=" + ns);
      }
    }
    if (!m.namespaces.containsKey(DEFAULT_NAMESPACE)) {
      throw r.corrupt("namespaces", "default namespace missing");
    }
    int nStreams = r.count("streams.count", 8 + 4 + 4 + 22);
    for (int i = 0; i < nStreams; i++) {
      long id = r.i64("stream.id");
      String ns = r.string("stream.namespace");
      String name = r.string("stream.name");
      StreamConfig cfg = CommandCodec.readConfig(r, "stream.config");
      if (cfg.partitions() < 1 || cfg.partitions() > StreamConfig.MAX_PARTITIONS) {
        throw r.corrupt("stream.config.partitions", "out of range partitions=" + cfg.partitions());
      }
      if (id < 1 || id >= m.nextStreamId || m.streamsById.containsKey(id)) {
        throw r.corrupt("stream.id", "bad or duplicate stream id=" + id);
      }
      TreeMap<String, StreamState> streams = m.namespaces.get(ns);
      if (streams == null || streams.containsKey(name)) {
        throw r.corrupt("stream.namespace", "unknown namespace or duplicate name stream=" + name);
      }
      StreamState s = new StreamState(new StreamInfo(id, ns, name, cfg));
      for (PartitionState p : s.partitions) {
        readPartition(r, p);
      }
      streams.put(name, s);
      m.streamsById.put(id, s);
    }
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
      if (m.dedupeByKey.put(key, rec) != null) {
        throw r.corrupt("dedupe.objectKey", "duplicate object=" + key);
      }
      m.dedupeByTime.add(rec);
    }
    for (StreamState s : m.streamsById.values()) {
      for (PartitionState p : s.partitions) {
        for (IndexEntry e : p.entries) {
          m.refs.merge(e.objectKey(), 1, Integer::sum);
        }
      }
    }
    if (version >= 2) {
      int nRetired = r.count("retired.count", 4 + 8);
      if (version == 2 && nRetired < 1) {
        throw r.corrupt("retired.count", "a v2 snapshot holds at least one retired object");
      }
      RetiredObject prev = null;
      for (int i = 0; i < nRetired; i++) {
        RetiredObject ro = new RetiredObject(r.string("retired.objectKey"), r.i64("retired.time"));
        if (prev != null && m.retiredByTime.comparator().compare(prev, ro) >= 0) {
          throw r.corrupt(
              "retired.objectKey", "retired objects not sorted object=" + ro.objectKey());
        }
        if (m.refs.containsKey(ro.objectKey()) || m.retiredByKey.put(ro.objectKey(), ro) != null) {
          throw r.corrupt(
              "retired.objectKey",
              "retired object is referenced or duplicate object=" + ro.objectKey());
        }
        m.retiredByTime.add(ro);
        prev = ro;
      }
    }
    if (version >= 3) {
      m.nextProducerId = r.i64("nextProducerId");
      if (m.nextProducerId < 0) {
        throw r.corrupt("nextProducerId", "negative nextProducerId=" + m.nextProducerId);
      }
      int nConsumers = r.count("consumers.count", 8 + 4 + 4 + 8 + 4 + 8 + 8 + 8);
      ConsumerKey prevKey = null;
      for (int i = 0; i < nConsumers; i++) {
        ConsumerLease l = CommandCodec.readLease(r, "consumer");
        ConsumerKey key = new ConsumerKey(l.streamId(), l.partition(), l.consumer());
        if (prevKey != null && prevKey.compareTo(key) >= 0) {
          throw r.corrupt("consumer", "consumers not sorted or duplicate consumer=" + l.consumer());
        }
        if (m.partitionState(l.streamId(), l.partition()) == null) {
          throw r.corrupt(
              "consumer.streamId",
              "consumer of an unknown stream or partition streamId="
                  + l.streamId()
                  + " partition="
                  + l.partition());
        }
        if (l.generation() < 1 || l.committedOffset() < ConsumerLease.NO_OFFSET) {
          throw r.corrupt(
              "consumer.generation",
              "bad generation or offset generation="
                  + l.generation()
                  + " committedOffset="
                  + l.committedOffset());
        }
        m.consumers.put(key, l);
        prevKey = key;
      }
    }
    if (version >= 4) {
      m.ownership.read(r, m.nodes, m.streamsById.keySet());
    }
    r.expectEnd();
    return m;
  }

  private static void readPartition(BinaryReader r, PartitionState p) {
    p.logStartOffset = r.i64("partition.logStartOffset");
    p.highWatermark = r.i64("partition.highWatermark");
    int nEntries = r.count("partition.entries.count", 8 + 4 + 4 + 8 + 4 + 8);
    long expectedBase = -1;
    for (int j = 0; j < nEntries; j++) {
      IndexEntry e =
          new IndexEntry(
              r.i64("entry.baseOffset"),
              r.i32("entry.recordCount"),
              r.string("entry.objectKey"),
              r.i64("entry.byteOffset"),
              r.i32("entry.byteLength"),
              r.i64("entry.maxTimestamp"));
      // Entries are dense and in offset order; binary search depends on it.
      if (e.recordCount() < 1 || (expectedBase >= 0 && e.baseOffset() != expectedBase)) {
        throw r.corrupt("entry.baseOffset", "index entries not dense baseOffset=" + e.baseOffset());
      }
      expectedBase = e.endOffset();
      p.addEntry(e);
    }
    if (expectedBase >= 0 && expectedBase != p.highWatermark) {
      throw r.corrupt(
          "partition.highWatermark",
          "index ends at " + expectedBase + " but highWatermark=" + p.highWatermark);
    }
    int nProducers = r.count("partition.producers.count", 8 + 2 + 4);
    long prevId = Long.MIN_VALUE;
    for (int j = 0; j < nProducers; j++) {
      long pid = r.i64("producer.id");
      if (j > 0 && pid <= prevId) {
        throw r.corrupt("producer.id", "producers not sorted producerId=" + pid);
      }
      prevId = pid;
      ProducerState ps = new ProducerState(r.i16("producer.epoch"));
      int nBatches = r.count("producer.batches.count", 16);
      if (nBatches < 1) {
        throw r.corrupt("producer.batches.count", "a producer has at least one batch");
      }
      for (int k = 0; k < nBatches; k++) {
        ps.batches.addLast(
            new SeqEntry(
                r.i32("producer.baseSequence"),
                r.i32("producer.lastSequence"),
                r.i64("producer.baseOffset")));
      }
      p.producers.put(pid, ps);
    }
  }

  @Override
  public String toString() {
    return "MetaStateMachine{appliedIndex="
        + appliedIndex
        + ", clock="
        + clockMillis
        + ", streams="
        + streamsById.size()
        + ", dedupe="
        + dedupeByKey.size()
        + ", retired="
        + retiredByKey.size()
        + ", consumers="
        + consumers.size()
        + "}";
  }
}
