package dev.loam.meta.codec;

import dev.loam.error.CorruptionException;
import dev.loam.error.LoamException;
import dev.loam.meta.command.NodeInfo;
import dev.loam.meta.command.NodeStatus;
import dev.loam.meta.command.Outcome;
import dev.loam.meta.command.Outcome.BatchResult;
import dev.loam.meta.command.Outcome.BatchStatus;
import dev.loam.meta.command.Outcome.RejectReason;
import dev.loam.meta.command.StreamInfo;
import dev.loam.meta.command.StreamOwnership;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Encodes and decodes {@link Outcome}s: kept in snapshots inside commit dedupe records, and sent
 * back to proposers by replicated metastores (docs/formats/metastore-commands.md). Stateless and
 * thread-safe.
 */
public final class OutcomeCodec {
  /** The format version written by this code; decode accepts exactly this version. */
  public static final int VERSION = 1;

  static final int TAG_REJECTED = 1;
  static final int TAG_NODE_REGISTERED = 2;
  static final int TAG_NAMESPACE_CREATED = 3;
  static final int TAG_STREAM_CREATED = 4;
  static final int TAG_DELETED = 5;
  static final int TAG_WAL_COMMITTED = 6;
  static final int TAG_SEGMENT_SWAPPED = 7;
  static final int TAG_TRIMMED = 8;
  static final int TAG_OBJECTS_DELETED = 9;
  static final int TAG_PRODUCER_IDS_ALLOCATED = 10;
  static final int TAG_CONSUMER_LEASE_GRANTED = 11;
  static final int TAG_CONSUMER_OFFSET_COMMITTED = 12;
  static final int TAG_STREAM_CONFIG_UPDATED = 13;
  static final int TAG_PARTITIONS_ADDED = 14;
  static final int TAG_NODE_STATUS_CHANGED = 15;
  static final int TAG_OWNERSHIP_CHANGED = 16;
  static final int TAG_CLUSTER_INITIALIZED = 17;

  /**
   * NodeRegistered of a node with endpoints: tag 2's body, then the endpoints. A node without
   * endpoints keeps tag 2, so every outcome that predates endpoints keeps its bytes.
   */
  static final int TAG_NODE_REGISTERED_WITH_ENDPOINTS = 18;

  static final int TAG_API_KEY_CREATED = 19;
  static final int TAG_API_KEY_REVOKED = 20;
  static final int TAG_GROUP_CHANGED = 21;
  static final int TAG_WAL_GROUP_COMMITTED = 25;

  private static final String FORMAT = "metastore outcome v" + VERSION;

  private OutcomeCodec() {}

  /** Encodes an outcome; a null where a value is required is an {@code INVALID} error. */
  public static byte[] encode(Outcome outcome) {
    BinaryWriter w = new BinaryWriter(64);
    try {
      write(w, outcome);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new LoamException(
          LoamException.Kind.INVALID,
          "cannot encode outcome type=" + outcome.getClass().getSimpleName(),
          e);
    }
    return w.toByteArray();
  }

  private static void write(BinaryWriter w, Outcome outcome) {
    w.u8(VERSION);
    if (outcome instanceof Outcome.Rejected o) {
      w.u8(TAG_REJECTED).u8(reasonCode(o.reason())).nullableString(o.message());
    } else if (outcome instanceof Outcome.NodeRegistered o) {
      NodeInfo n = o.node();
      w.u8(n.endpoints().isEmpty() ? TAG_NODE_REGISTERED : TAG_NODE_REGISTERED_WITH_ENDPOINTS);
      w.string(n.id())
          .i64(n.epoch())
          .nullableString(n.advertisedAddress())
          .i32(n.slots())
          .nullableString(n.zone());
      if (!n.endpoints().isEmpty()) {
        w.i32(n.endpoints().size());
        for (Map.Entry<String, String> e : n.endpoints().entrySet()) {
          w.string(e.getKey()).string(e.getValue());
        }
      }
    } else if (outcome instanceof Outcome.NamespaceCreated o) {
      w.u8(TAG_NAMESPACE_CREATED).string(o.name());
    } else if (outcome instanceof Outcome.StreamCreated o) {
      w.u8(TAG_STREAM_CREATED);
      StreamInfo s = o.stream();
      w.i64(s.id()).string(s.namespace()).string(s.name());
      CommandCodec.writeConfig(w, s.config());
    } else if (outcome instanceof Outcome.Deleted o) {
      w.u8(TAG_DELETED).string(o.name());
    } else if (outcome instanceof Outcome.WalCommitted o) {
      writeWalCommitted(w, o);
    } else if (outcome instanceof Outcome.WalGroupCommitted o) {
      w.u8(TAG_WAL_GROUP_COMMITTED).i32(o.members().size());
      for (Outcome m : o.members()) {
        if (m instanceof Outcome.WalCommitted wc) {
          writeWalCommitted(w, wc);
        } else {
          Outcome.Rejected rj = (Outcome.Rejected) m;
          w.u8(TAG_REJECTED).u8(reasonCode(rj.reason())).nullableString(rj.message());
        }
      }
    } else if (outcome instanceof Outcome.SegmentSwapped o) {
      w.u8(TAG_SEGMENT_SWAPPED).bool(o.deduplicated()).i32(o.entriesReplaced());
    } else if (outcome instanceof Outcome.Trimmed o) {
      w.u8(TAG_TRIMMED).i64(o.logStartOffset()).i32(o.entriesDropped());
    } else if (outcome instanceof Outcome.ObjectsDeleted o) {
      w.u8(TAG_OBJECTS_DELETED).i32(o.removed());
    } else if (outcome instanceof Outcome.ProducerIdsAllocated o) {
      w.u8(TAG_PRODUCER_IDS_ALLOCATED).i64(o.firstProducerId()).i32(o.count());
    } else if (outcome instanceof Outcome.WriterLeaseGranted o) {
      w.u8(WriterLeaseCodec.TAG_WRITER_LEASE_GRANTED);
      WriterLeaseCodec.writeLease(w, o.lease());
    } else if (outcome instanceof Outcome.ConsumerLeaseGranted o) {
      w.u8(TAG_CONSUMER_LEASE_GRANTED);
      CommandCodec.writeLease(w, o.lease());
    } else if (outcome instanceof Outcome.ConsumerOffsetCommitted o) {
      w.u8(TAG_CONSUMER_OFFSET_COMMITTED);
      CommandCodec.writeLease(w, o.lease());
    } else if (outcome instanceof Outcome.StreamConfigUpdated o) {
      w.u8(TAG_STREAM_CONFIG_UPDATED);
      writeStream(w, o.stream());
    } else if (outcome instanceof Outcome.PartitionsAdded o) {
      w.u8(TAG_PARTITIONS_ADDED);
      writeStream(w, o.stream());
      w.i32(o.previousPartitions());
    } else if (outcome instanceof Outcome.NodeStatusChanged o) {
      w.u8(TAG_NODE_STATUS_CHANGED);
      NodeStatus n = o.status();
      w.string(n.nodeId()).i64(n.epoch()).bool(n.live()).i64(n.renewedAtMillis());
      w.bool(o.changed()).i32(o.streamsClosed());
    } else if (outcome instanceof Outcome.OwnershipChanged o) {
      w.u8(TAG_OWNERSHIP_CHANGED);
      writeOwnership(w, o.ownership());
      w.bool(o.changed());
    } else if (outcome instanceof Outcome.ClusterInitialized o) {
      w.u8(TAG_CLUSTER_INITIALIZED).string(o.clusterId());
    } else if (outcome instanceof Outcome.ApiKeyCreated o) {
      w.u8(TAG_API_KEY_CREATED);
      ApiKeyCodec.writeKey(w, o.key());
    } else if (outcome instanceof Outcome.ApiKeyRevoked o) {
      w.u8(TAG_API_KEY_REVOKED);
      ApiKeyCodec.writeKey(w, o.key());
      w.bool(o.changed());
    } else if (outcome instanceof Outcome.GroupChanged o) {
      w.u8(TAG_GROUP_CHANGED);
      w.string(o.namespace()).string(o.group()).i32(o.generation()).i32(o.offsets());
    } else if (outcome instanceof Outcome.JournalPlaced o) {
      JournalPlacementCodec.write(w, o);
    } else if (EventLedgerCodec.isLedger(outcome)) {
      EventLedgerCodec.write(w, outcome);
    } else if (NamespaceKeyCodec.isKeyOutcome(outcome)) {
      NamespaceKeyCodec.write(w, outcome);
    } else if (StreamSchemaCodec.isSchema(outcome)) {
      StreamSchemaCodec.write(w, outcome);
    } else {
      throw new IllegalArgumentException("unknown outcome type " + outcome.getClass());
    }
  }

  /** Decodes an outcome; malformed or truncated input is a {@link CorruptionException}. */
  public static Outcome decode(byte[] bytes) {
    BinaryReader r = new BinaryReader(FORMAT, bytes);
    int version = r.u8("version");
    if (version != VERSION) {
      throw r.corrupt("version", "unsupported version=" + version);
    }
    int tag = r.u8("tag");
    Outcome o =
        switch (tag) {
          case TAG_REJECTED ->
              new Outcome.Rejected(
                  reason(r, r.u8("rejected.reason")), r.nullableString("rejected.message"));
          case TAG_NODE_REGISTERED -> new Outcome.NodeRegistered(readNode(r));
          case TAG_NODE_REGISTERED_WITH_ENDPOINTS -> {
            NodeInfo n = readNode(r);
            yield new Outcome.NodeRegistered(n.withEndpoints(readEndpoints(r)));
          }
          case TAG_NAMESPACE_CREATED ->
              new Outcome.NamespaceCreated(r.string("namespaceCreated.name"));
          case TAG_STREAM_CREATED -> {
            long id = r.i64("stream.id");
            String ns = r.string("stream.namespace");
            String name = r.string("stream.name");
            yield new Outcome.StreamCreated(
                new StreamInfo(id, ns, name, CommandCodec.readConfig(r, "stream.config")));
          }
          case TAG_DELETED -> new Outcome.Deleted(r.string("deleted.name"));
          case TAG_WAL_COMMITTED -> readWalCommitted(r);
          case TAG_WAL_GROUP_COMMITTED -> readWalGroupCommitted(r);
          case TAG_SEGMENT_SWAPPED ->
              new Outcome.SegmentSwapped(
                  r.bool("segmentSwapped.deduplicated"), r.i32("segmentSwapped.entriesReplaced"));
          case TAG_TRIMMED ->
              new Outcome.Trimmed(r.i64("trimmed.logStartOffset"), r.i32("trimmed.entriesDropped"));
          case TAG_OBJECTS_DELETED -> new Outcome.ObjectsDeleted(r.i32("objectsDeleted.removed"));
          case TAG_PRODUCER_IDS_ALLOCATED ->
              new Outcome.ProducerIdsAllocated(
                  r.i64("producerIdsAllocated.firstProducerId"),
                  r.i32("producerIdsAllocated.count"));
          case WriterLeaseCodec.TAG_WRITER_LEASE_GRANTED ->
              new Outcome.WriterLeaseGranted(
                  WriterLeaseCodec.readLease(r, "writerLeaseGranted.lease"));
          case TAG_CONSUMER_LEASE_GRANTED ->
              new Outcome.ConsumerLeaseGranted(CommandCodec.readLease(r, "leaseGranted.lease"));
          case TAG_CONSUMER_OFFSET_COMMITTED ->
              new Outcome.ConsumerOffsetCommitted(
                  CommandCodec.readLease(r, "offsetCommitted.lease"));
          case TAG_STREAM_CONFIG_UPDATED -> new Outcome.StreamConfigUpdated(readStream(r));
          case TAG_PARTITIONS_ADDED ->
              new Outcome.PartitionsAdded(
                  readStream(r), r.i32("partitionsAdded.previousPartitions"));
          case TAG_NODE_STATUS_CHANGED -> {
            NodeStatus n =
                new NodeStatus(
                    r.string("nodeStatus.nodeId"),
                    r.i64("nodeStatus.epoch"),
                    r.bool("nodeStatus.live"),
                    r.i64("nodeStatus.renewedAtMillis"));
            boolean changed = r.bool("nodeStatusChanged.changed");
            yield new Outcome.NodeStatusChanged(n, changed, r.i32("nodeStatusChanged.closed"));
          }
          case TAG_OWNERSHIP_CHANGED -> {
            StreamOwnership so = readOwnership(r, "ownership");
            yield new Outcome.OwnershipChanged(so, r.bool("ownershipChanged.changed"));
          }
          case TAG_CLUSTER_INITIALIZED ->
              new Outcome.ClusterInitialized(r.string("clusterInitialized.clusterId"));
          case TAG_API_KEY_CREATED ->
              new Outcome.ApiKeyCreated(ApiKeyCodec.readKey(r, "apiKeyCreated.key"));
          case TAG_API_KEY_REVOKED -> {
            var key = ApiKeyCodec.readKey(r, "apiKeyRevoked.key");
            yield new Outcome.ApiKeyRevoked(key, r.bool("apiKeyRevoked.changed"));
          }
          case TAG_GROUP_CHANGED -> {
            String ns = r.string("groupChanged.namespace");
            String group = r.string("groupChanged.group");
            int generation = r.i32("groupChanged.generation");
            yield new Outcome.GroupChanged(ns, group, generation, r.i32("groupChanged.offsets"));
          }
          case EventLedgerCodec.TAG_EVENTS_CLAIMED,
              EventLedgerCodec.TAG_EVENTS_COMPLETED,
              EventLedgerCodec.TAG_EVENTS_REMOVED ->
              EventLedgerCodec.read(r, tag);
          case NamespaceKeyCodec.TAG_NAMESPACE_KEYS_CHANGED -> NamespaceKeyCodec.read(r);
          case StreamSchemaCodec.TAG_SCHEMA_ADDED -> StreamSchemaCodec.read(r);
          case JournalPlacementCodec.TAG_JOURNAL_PLACED -> JournalPlacementCodec.read(r);
          default -> throw r.corrupt("tag", "unknown outcome tag=" + tag);
        };
    r.expectEnd();
    return o;
  }

  private static NodeInfo readNode(BinaryReader r) {
    return new NodeInfo(
        r.string("node.id"),
        r.i64("node.epoch"),
        r.nullableString("node.advertisedAddress"),
        r.i32("node.slots"),
        r.nullableString("node.zone"));
  }

  /**
   * Tag 18's endpoints: at least one (none is tag 2), names strictly increasing, so that each
   * outcome has exactly one encoding. The codec checks only that; names and addresses are the state
   * machine's to validate.
   */
  private static TreeMap<String, String> readEndpoints(BinaryReader r) {
    int n = r.count("node.endpoints.count", 4 + 4);
    if (n < 1) {
      throw r.corrupt("node.endpoints.count", "tag 18 carries at least one endpoint count=0");
    }
    TreeMap<String, String> out = new TreeMap<>();
    String prev = null;
    for (int i = 0; i < n; i++) {
      String name = r.string("node.endpoint.name");
      if (prev != null && prev.compareTo(name) >= 0) {
        throw r.corrupt("node.endpoint.name", "unsorted or duplicate endpoint name=" + name);
      }
      out.put(name, r.string("node.endpoint.address"));
      prev = name;
    }
    return out;
  }

  /** The StreamCreated body: id, namespace, name, config. */
  private static void writeStream(BinaryWriter w, StreamInfo s) {
    w.i64(s.id()).string(s.namespace()).string(s.name());
    CommandCodec.writeConfig(w, s.config());
  }

  private static StreamInfo readStream(BinaryReader r) {
    long id = r.i64("stream.id");
    String ns = r.string("stream.namespace");
    String name = r.string("stream.name");
    return new StreamInfo(id, ns, name, CommandCodec.readConfig(r, "stream.config"));
  }

  private static void writeWalCommitted(BinaryWriter w, Outcome.WalCommitted o) {
    w.u8(TAG_WAL_COMMITTED).bool(o.deduplicated()).i32(o.chunks().size());
    for (List<BatchResult> chunk : o.chunks()) {
      w.i32(chunk.size());
      for (BatchResult b : chunk) {
        w.u8(statusCode(b.status())).i64(b.baseOffset());
      }
    }
  }

  private static Outcome.WalGroupCommitted readWalGroupCommitted(BinaryReader r) {
    // Smallest member: a tag and a Rejected's reason and null message (1 + 1 + 4).
    int n = r.count("walGroupCommitted.members.count", 6);
    List<Outcome> members = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      int tag = r.u8("walGroupCommitted.member.tag");
      if (tag == TAG_WAL_COMMITTED) {
        members.add(readWalCommitted(r));
      } else if (tag == TAG_REJECTED) {
        RejectReason reason = reason(r, r.u8("walGroupCommitted.member.rejected.reason"));
        members.add(
            new Outcome.Rejected(
                reason, r.nullableString("walGroupCommitted.member.rejected.message")));
      } else {
        throw r.corrupt("walGroupCommitted.member.tag", "not 1 or 6 tag=" + tag);
      }
    }
    return new Outcome.WalGroupCommitted(members);
  }

  private static Outcome.WalCommitted readWalCommitted(BinaryReader r) {
    boolean dedup = r.bool("walCommitted.deduplicated");
    int nChunks = r.count("walCommitted.chunks.count", 4);
    List<List<BatchResult>> chunks = new ArrayList<>(nChunks);
    for (int i = 0; i < nChunks; i++) {
      int n = r.count("walCommitted.chunk.count", 9);
      List<BatchResult> batches = new ArrayList<>(n);
      for (int j = 0; j < n; j++) {
        BatchStatus status = status(r, r.u8("walCommitted.batch.status"));
        batches.add(new BatchResult(status, r.i64("walCommitted.batch.baseOffset")));
      }
      chunks.add(batches);
    }
    return new Outcome.WalCommitted(dedup, chunks);
  }

  /** Writes a stream's ownership (shared with the snapshot layout). */
  public static void writeOwnership(BinaryWriter w, StreamOwnership o) {
    w.i64(o.streamId())
        .u8(o.state().code())
        .nullableString(o.owner())
        .i64(o.ownerEpoch())
        .i64(o.streamEpoch())
        .nullableString(o.transferTarget());
  }

  /** Reads what {@link #writeOwnership} wrote; a state inconsistent with its owner is corrupt. */
  public static StreamOwnership readOwnership(BinaryReader r, String field) {
    long streamId = r.i64(field + ".streamId");
    int code = r.u8(field + ".state");
    StreamOwnership.State state = StreamOwnership.State.ofCode(code);
    if (state == null) {
      throw r.corrupt(field + ".state", "unknown code=" + code);
    }
    String owner = r.nullableString(field + ".owner");
    long ownerEpoch = r.i64(field + ".ownerEpoch");
    long streamEpoch = r.i64(field + ".streamEpoch");
    String target = r.nullableString(field + ".transferTarget");
    boolean owned = state == StreamOwnership.State.PLACED || state == StreamOwnership.State.OPEN;
    if (owned != (owner != null) || (target != null && state != StreamOwnership.State.OPEN)) {
      throw r.corrupt(
          field + ".owner",
          "owner or transfer target inconsistent with state=" + state + " streamId=" + streamId);
    }
    return new StreamOwnership(streamId, state, owner, ownerEpoch, streamEpoch, target);
  }

  // Stable wire codes, independent of enum declaration order.

  static int reasonCode(RejectReason reason) {
    return switch (reason) {
      case STALE_NODE_EPOCH -> 1;
      case UNKNOWN_NODE -> 2;
      case FUTURE_STAMP -> 3;
      case STALE_COMMIT -> 4;
      case ALREADY_EXISTS -> 5;
      case NOT_FOUND -> 6;
      case CONFLICT -> 7;
      case INVALID -> 8;
      case FENCED -> 9;
      case OUT_OF_RANGE -> 10;
      case NOT_OWNER -> 11;
    };
  }

  private static RejectReason reason(BinaryReader r, int code) {
    for (RejectReason reason : RejectReason.values()) {
      if (reasonCode(reason) == code) {
        return reason;
      }
    }
    throw r.corrupt("rejected.reason", "unknown code=" + code);
  }

  static int statusCode(BatchStatus status) {
    return switch (status) {
      case APPENDED -> 1;
      case DUPLICATE -> 2;
      case OUT_OF_ORDER_SEQUENCE -> 3;
      case PRODUCER_FENCED -> 4;
      case UNKNOWN_PARTITION -> 5;
      case ALREADY_APPENDED -> 6;
      case WRITER_FENCED -> 7;
      case SOURCE_GAP -> 8;
      case SOURCE_OVERLAP -> 9;
    };
  }

  private static BatchStatus status(BinaryReader r, int code) {
    for (BatchStatus s : BatchStatus.values()) {
      if (statusCode(s) == code) {
        return s;
      }
    }
    throw r.corrupt("walCommitted.batch.status", "unknown code=" + code);
  }
}
